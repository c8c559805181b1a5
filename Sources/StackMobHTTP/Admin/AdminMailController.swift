import Hummingbird
import StackMobCore

/// `GET /_admin/environments/<env>/mail_outbox`: the mail kept in the environment's outbox when
/// no SMTP server is configured (password resets in development), oldest first, as
/// `[{"id", "to", "subject", "body", "created_at"}]`. The bodies hold temporary passwords, so
/// reading them is audited and never cached.
struct AdminMailController {
    let backend: Backend

    func addRoutes(to router: some RouterMethods<StackMobRequestContext>) {
        router.get("/_admin/environments/:env/mail_outbox", use: outbox)
    }

    @Sendable func outbox(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try AdminRequest.environment(context, backend: backend)
        let entries = try await environment.users.mailOutbox()
        try await backend.operators.audit(
            try AdminRequest.operatorName(context), action: "mail_outbox.show", detail: ["environment": .string(environment.kind.rawValue)])
        return JSONResponse.make(
            .array(entries.map { entry in
                [
                    "id": .integer(entry.id), "to": .string(entry.message.to), "subject": .string(entry.message.subject),
                    "body": .string(entry.message.body), "created_at": .integer(entry.createdAt),
                ]
            }),
            headers: [.cacheControl: "no-store"])
    }
}
