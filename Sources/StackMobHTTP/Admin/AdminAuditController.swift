import Hummingbird
import StackMobCore

/// `GET /_admin/audit?limit=<n>`: the audit log, newest first (who, when, what).
struct AdminAuditController {
    let operators: OperatorStore

    func addRoutes(to router: some RouterMethods<StackMobRequestContext>) {
        router.get("/_admin/audit", use: list)
    }

    @Sendable func list(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let text = request.uri.queryParameters.get("limit") ?? "100"
        guard let limit = Int(text), (1...1000).contains(limit) else { throw AdminError.badInput(key: "limit", "must be an integer from 1 to 1000") }
        let entries = try await operators.auditLog(limit: limit)
        return JSONResponse.make(.array(entries.map(\.json)))
    }
}
