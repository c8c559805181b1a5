import Foundation
import HTTPTypes
import Hummingbird
import StackMobCore

/// Push, custom code, deploy and the mail outbox: `…/push[/tokens|/notifications|/expired_tokens]`,
/// `…/custom_code`, `POST /_admin/environments/production/deploy` and `…/mail_outbox`.
extension ConsoleController {
    @Sendable func push(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let session = try await signedIn(request, context)
        var page = Self.banners(request)
        page["title"] = "Push"
        let outbox = try await client.send(.get, adminPath(session, "/push"), from: request, context: context)
        page["outbox"] = (outbox.object["outbox"]?.objectValue ?? [:]).sorted { $0.key < $1.key }.map { state, count -> [String: Any] in
            ["state": state, "count": count.integerValue.map(String.init) ?? ""]
        }
        let users = (ConsoleForm.query(request)["users"] ?? "").split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
        page["users"] = users.joined(separator: ", ")
        if !users.isEmpty {
            let query = users.map { "user=" + ConsoleForm.encode($0) }.joined(separator: "&")
            let tokens = try await client.send(.get, adminPath(session, "/push/tokens?\(query)"), from: request, context: context)
            page["tokens"] = tokens.array.compactMap(\.objectValue).map(Self.tokenRow)
        }
        let expired = try await client.send(.get, adminPath(session, "/push/expired_tokens?clear=false"), from: request, context: context)
        page["expired"] = expired.array.compactMap(\.objectValue).map(Self.tokenRow)
        return ConsolePages.shared.response("push", page, session: session)
    }

    @Sendable func sendPush(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let (session, form) = try await posted(request, context)
        let back = pagePath(session, "/push")
        let recipients = (form["recipients"] ?? "").split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
        var body: JSONObject = ["payload": ["alert": .string(form["alert"] ?? "")]]
        switch form["to"] {
        case "users":
            guard !recipients.isEmpty else { return Self.redirect(back, error: "users: name at least one user") }
            body["users"] = .array(recipients.map(JSONValue.string))
        case "tokens":
            var tokens: [JSONValue] = []
            for item in recipients {
                let parts = item.split(separator: ":", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { return Self.redirect(back, error: "tokens: write each as type:token") }
                tokens.append(["type": .string(parts[0]), "token": .string(parts[1])])
            }
            guard !tokens.isEmpty else { return Self.redirect(back, error: "tokens: name at least one token") }
            body["tokens"] = .array(tokens)
        default:
            break
        }
        let reply = try await client.send(.post, adminPath(session, "/push/notifications"), body: .object(body), csrf: session.csrf, from: request, context: context)
        guard reply.isSuccess else { return Self.redirect(back, error: reply.error) }
        return Self.redirect(back, notice: "Notification accepted: its deliveries are in the outbox")
    }

    @Sendable func customCode(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let session = try await signedIn(request, context)
        var page = Self.banners(request)
        page["title"] = "Custom code"
        let reply = try await client.send(.get, adminPath(session, "/custom_code"), from: request, context: context)
        page["methods"] = (reply.object["methods"]?.arrayValue ?? []).compactMap(\.objectValue).map { method -> [String: Any] in
            [
                "name": method["name"]?.stringValue ?? "", "url": method["url"]?.stringValue ?? "",
                "failures": (method["last_failures"]?.arrayValue ?? []).compactMap(\.objectValue).map { failure -> [String: Any] in
                    ["at": Self.date(failure["at"]), "reason": failure["reason"]?.stringValue ?? ""]
                },
            ]
        }
        return ConsolePages.shared.response("customcode", page, session: session)
    }

    /// The plan is the admin API's `dry_run` deploy, a POST that changes nothing; it carries the
    /// session's CSRF token like any console write.
    @Sendable func deployPlan(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let session = try await signedIn(request, context, environment: "production")
        var page = Self.banners(request)
        page["title"] = "Deploy to production"
        let reply = try await client.send(
            .post, adminPath(session, "/deploy"), body: ["from": "development", "dry_run": true], csrf: session.csrf, from: request, context: context)
        if reply.isSuccess {
            let changes = (reply.object["changes"]?.arrayValue ?? []).compactMap(\.stringValue)
            page["changes"] = changes
            page["canApply"] = !changes.isEmpty
        } else {
            page["conflicts"] = [reply.error]
            page["hasConflicts"] = true
        }
        return ConsolePages.shared.response("deploy", page, session: session)
    }

    @Sendable func deploy(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let (session, _) = try await posted(request, context, environment: "production")
        let reply = try await client.send(.post, adminPath(session, "/deploy"), body: ["from": "development"], csrf: session.csrf, from: request, context: context)
        let back = pagePath(session, "/deploy")
        guard reply.isSuccess else { return Self.redirect(back, error: reply.error) }
        let count = reply.object["changes"]?.arrayValue?.count ?? 0
        return Self.redirect(back, notice: "Deployed to production: \(count) change\(count == 1 ? "" : "s") applied")
    }

    @Sendable func mail(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let session = try await signedIn(request, context)
        var page = Self.banners(request)
        page["title"] = "Mail outbox"
        let reply = try await client.send(.get, adminPath(session, "/mail_outbox"), from: request, context: context)
        if !reply.isSuccess { page["error"] = reply.error }
        page["messages"] = reply.array.compactMap(\.objectValue).reversed().map { message -> [String: Any] in
            [
                "to": message["to"]?.stringValue ?? "", "subject": message["subject"]?.stringValue ?? "",
                "body": message["body"]?.stringValue ?? "", "at": Self.date(message["created_at"]),
            ]
        }
        return ConsolePages.shared.response("mail", page, session: session)
    }

    private static func tokenRow(_ token: JSONObject) -> [String: Any] {
        ["user": token["user"]?.stringValue ?? "", "type": token["type"]?.stringValue ?? "", "token": token["token"]?.stringValue ?? ""]
    }
}
