import Foundation
import HTTPTypes
import Hummingbird
import StackMobCore

/// Users: `GET …/users/<schema>?<query>` to search, `POST …/forgot_password`,
/// `DELETE …/sessions`, and roles as `aclrole` objects (`…/objects/aclrole[/<role>]`).
extension ConsoleController {
    @Sendable func users(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let session = try await signedIn(request, context)
        let query = ConsoleForm.query(request)
        let schema = query.trimmed("schema") ?? "user"
        let prefix = query.trimmed("q") ?? ""
        var page = Self.banners(request)
        page["title"] = "Users"
        page["schema"] = schema
        page["q"] = prefix
        let key = try await userKey(session, schema, request, context)
        // A prefix search: every login from the prefix up to the prefix followed by the highest character.
        let filter = prefix.isEmpty ? "" : "?\(key)%5Bgte%5D=\(ConsoleForm.encode(prefix))&\(key)%5Blt%5D=\(ConsoleForm.encode(prefix + "\u{FFFF}"))"
        let reply = try await client.send(
            .get, adminPath(session, "/users/\(ConsoleForm.encode(schema))") + filter,
            headers: [.range: "objects=0-99", HTTPField.Name("X-StackMob-OrderBy")!: "\(key):asc"], from: request, context: context)
        guard reply.isSuccess else {
            page["error"] = reply.error
            return ConsolePages.shared.response("users", page, session: session)
        }
        let roles = try await roleMembers(session, request, context)
        page["users"] = reply.array.compactMap(\.objectValue).compactMap { user -> [String: Any]? in
            guard let id = user[key]?.stringValue else { return nil }
            return [
                "id": id, "roles": roles.filter { $0.value.contains(id) }.keys.sorted().joined(separator: ", "),
                "href": pagePath(session, "/data/\(ConsoleForm.encode(schema))/\(ConsoleForm.encode(id))"),
                "base": pagePath(session, "/users/\(ConsoleForm.encode(schema))/\(ConsoleForm.encode(id))"),
            ]
        }
        return ConsolePages.shared.response("users", page, session: session)
    }

    @Sendable func userAction(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let (session, form) = try await posted(request, context)
        let (schema, id) = (context.parameters.get("schema") ?? "", context.parameters.get("id") ?? "")
        let base = adminPath(session, "/users/\(ConsoleForm.encode(schema))/\(ConsoleForm.encode(id))")
        let back = pagePath(session, "/users?schema=\(ConsoleForm.encode(schema))&q=\(ConsoleForm.encode(id))")
        let reply: AdminClient.Reply
        let notice: String
        switch context.parameters.get("action") {
        case "forgot_password":
            reply = try await client.send(.post, base + "/forgot_password", body: [:], csrf: session.csrf, from: request, context: context)
            notice = "A password reset was sent to \(id)"
        case "revoke_sessions":
            reply = try await client.send(.delete, base + "/sessions", csrf: session.csrf, from: request, context: context)
            notice = "Every session of \(id) has ended"
        case "roles":
            guard let role = form.trimmed("role") else { return Self.redirect(back, error: "role: must be a role name") }
            reply = try await addRole(role, user: id, session, request, context)
            notice = "\(id) is now in the role \(role)"
        default:
            return Self.redirect(back, error: "Unknown action")
        }
        guard reply.isSuccess else { return Self.redirect(back, error: reply.error) }
        return Self.redirect(back, notice: notice)
    }

    /// Adds the user to `aclrole/<role>`'s `users`, creating the role when it does not exist.
    private func addRole(_ role: String, user: String, _ session: ConsoleSession, _ request: Request, _ context: StackMobRequestContext) async throws -> AdminClient.Reply {
        let path = adminPath(session, "/objects/aclrole/\(ConsoleForm.encode(role))")
        let current = try await client.send(.get, path, from: request, context: context)
        if current.isSuccess {
            var members = (current.object["users"]?.arrayValue ?? []).compactMap(\.stringValue)
            if !members.contains(user) { members.append(user) }
            return try await client.send(.put, path, body: ["users": .array(members.map(JSONValue.string))], csrf: session.csrf, from: request, context: context)
        }
        return try await client.send(
            .post, adminPath(session, "/objects/aclrole"), body: ["aclrole_id": .string(role), "users": [.string(user)]],
            csrf: session.csrf, from: request, context: context)
    }

    /// Role name → its members, from the `aclrole` objects (none when the schema does not exist).
    private func roleMembers(_ session: ConsoleSession, _ request: Request, _ context: StackMobRequestContext) async throws -> [String: [String]] {
        let reply = try await client.send(.get, adminPath(session, "/objects/aclrole"), headers: [.range: "objects=0-999"], from: request, context: context)
        guard reply.isSuccess else { return [:] }
        var roles: [String: [String]] = [:]
        for role in reply.array.compactMap(\.objectValue) {
            guard let name = role["aclrole_id"]?.stringValue else { continue }
            roles[name] = (role["users"]?.arrayValue ?? []).compactMap(\.stringValue)
        }
        return roles
    }

    /// The login field of a user schema: its declared primary key, else `username`.
    private func userKey(_ session: ConsoleSession, _ schema: String, _ request: Request, _ context: StackMobRequestContext) async throws -> String {
        try await schemaDocument(session, request, context)[schema]?.objectValue?["primary_key"]?.stringValue ?? "username"
    }
}
