import Foundation
import HTTPTypes
import Hummingbird
import StackMobCore

/// Overview and schema pages: `GET …/schemas`, `…/keys`, `…/objects/<schema>` (counts),
/// `…/health`, `…/custom_code`, `…/push` and `/_admin/audit` to read; `POST …/schemas` to change.
extension ConsoleController {
    static let fieldTypes = [
        "string", "integer", "float", "boolean", "geopoint", "binary", "array[string]", "array[integer]", "array[float]", "array[boolean]",
    ]
    static let verbs = ["create", "read", "update", "delete"]

    @Sendable func overview(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let session = try await signedIn(request, context)
        var page = Self.banners(request)
        page["title"] = "Overview"
        let keys = try await client.send(.get, adminPath(session, "/keys"), from: request, context: context)
        page["publicKey"] = keys.object["public_key"]?.stringValue ?? keys.error
        if ConsoleForm.query(request)["reveal"] == "private" { page["privateKey"] = keys.object["private_key"]?.stringValue }
        var counts: [[String: Any]] = []
        for name in try await schemaDocument(session, request, context).keys.sorted() {
            let count = try await objectCount(session, schema: name, query: "", request, context)
            counts.append(["name": name, "count": count.map(String.init) ?? "?", "href": pagePath(session, "/data?schema=\(ConsoleForm.encode(name))")])
        }
        page["counts"] = counts
        page["health"] = try await health(session, request, context)
        var errors: [[String: Any]] = []
        let push = try await client.send(.get, adminPath(session, "/push"), from: request, context: context)
        for state in ["failed", "expired"] {
            if let n = push.object["outbox"]?.objectValue?[state]?.integerValue, n > 0 {
                errors.append(["what": "Push", "detail": "\(n) \(state) deliveries"])
            }
        }
        let code = try await client.send(.get, adminPath(session, "/custom_code"), from: request, context: context)
        for method in code.object["methods"]?.arrayValue ?? [] {
            for failure in method.objectValue?["last_failures"]?.arrayValue ?? [] {
                errors.append([
                    "what": "Custom code \(method.objectValue?["name"]?.stringValue ?? "")",
                    "detail": "\(Self.date(failure.objectValue?["at"])): \(failure.objectValue?["reason"]?.stringValue ?? "")",
                ])
            }
        }
        page["errors"] = errors
        let audit = try await client.send(.get, "\(AdminMiddleware.prefix)/audit?limit=10", from: request, context: context)
        page["audit"] = audit.array.compactMap(\.objectValue).map { entry -> [String: Any] in
            [
                "at": Self.date(entry["at"]), "operator": entry["operator"]?.stringValue ?? "", "action": entry["action"]?.stringValue ?? "",
                "detail": entry["detail"].map { JSONWriter.string($0) } ?? "",
            ]
        }
        return ConsolePages.shared.response("overview", page, session: session)
    }

    @Sendable func schemas(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let session = try await signedIn(request, context)
        var page = Self.banners(request)
        page["title"] = "Schemas"
        page["schemas"] = try await schemaDocument(session, request, context).sorted { $0.key < $1.key }.map { name, declaration -> [String: Any] in
            [
                "name": name, "href": pagePath(session, "/schemas/\(ConsoleForm.encode(name))"),
                "dataHref": pagePath(session, "/data?schema=\(ConsoleForm.encode(name))"),
                "primaryKey": Self.primaryKey(name, declaration), "fieldCount": declaration.objectValue?["fields"]?.objectValue?.count ?? 0,
            ]
        }
        return ConsolePages.shared.response("schemas", page, session: session)
    }

    @Sendable func schema(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let session = try await signedIn(request, context)
        let name = context.parameters.get("schema") ?? ""
        let document = try await schemaDocument(session, request, context)
        guard let declaration = document[name]?.objectValue else {
            return Self.redirect(pagePath(session, "/schemas"), error: "The schema '\(name)' does not exist")
        }
        var page = Self.banners(request)
        page["title"] = "Schema \(name)"
        let fields = (declaration["fields"]?.objectValue ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value.stringValue ?? "") }
        page["fields"] = fields.map { ["name": $0.0, "type": $0.1] }
        page["relationships"] = fields.compactMap { field, type -> [String: Any]? in
            let parts = type.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            return ["name": field, "kind": parts[0].replacingOccurrences(of: "_", with: " "), "target": parts[1],
                    "href": pagePath(session, "/schemas/\(ConsoleForm.encode(parts[1]))")]
        }
        page["indexes"] = (declaration["indexes"]?.arrayValue ?? []).map { index in
            index.stringValue ?? (index.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ", ")
        }
        let permissions = declaration["permissions"]?.objectValue ?? [:]
        page["permissions"] = Self.verbs.map { verb in
            ["verb": verb, "level": permissions[verb]?.stringValue ?? permissions["all"]?.stringValue ?? ""]
        }
        page["primaryKey"] = Self.primaryKey(name, .object(declaration))
        page["types"] = Self.fieldTypes
        page["allSchemas"] = document.keys.sorted()
        page["action"] = pagePath(session, "/schemas/\(ConsoleForm.encode(name))")
        page["dataHref"] = pagePath(session, "/data?schema=\(ConsoleForm.encode(name))")
        return ConsolePages.shared.response("schema", page, session: session)
    }

    @Sendable func addSchema(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let (session, form) = try await posted(request, context)
        let name = form.trimmed("schema") ?? ""
        return try await applySchemas(session, [name: ["fields": .object([:])]], back: "/schemas/\(ConsoleForm.encode(name))",
                                      failBack: "/schemas", notice: "Schema \(name) added", request, context)
    }

    @Sendable func addField(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let (session, form) = try await posted(request, context)
        let name = context.parameters.get("schema") ?? ""
        let field = form.trimmed("field") ?? ""
        var type = form.trimmed("type") ?? ""
        if let kind = form.trimmed("kind"), let target = form.trimmed("target") { type = "\(kind):\(target)" }
        return try await applySchemas(session, [name: ["fields": [field: .string(type)]]], back: "/schemas/\(ConsoleForm.encode(name))",
                                      notice: "Field \(field) (\(type)) added", request, context)
    }

    @Sendable func addIndex(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let (session, form) = try await posted(request, context)
        let name = context.parameters.get("schema") ?? ""
        let fields = (form["fields"] ?? "").split(separator: ",").map { JSONValue.string($0.trimmingSpaces()) }
        let index: JSONValue = fields.count == 1 ? fields[0] : .array(fields)
        return try await applySchemas(session, [name: ["indexes": [index]]], back: "/schemas/\(ConsoleForm.encode(name))",
                                      notice: "Index added", request, context)
    }

    @Sendable func setPermissions(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let (session, form) = try await posted(request, context)
        let name = context.parameters.get("schema") ?? ""
        var permissions: JSONObject = [:]
        for verb in Self.verbs { if let level = form.trimmed(verb) { permissions[verb] = .string(level) } }
        return try await applySchemas(session, [name: ["permissions": .object(permissions)]], back: "/schemas/\(ConsoleForm.encode(name))",
                                      notice: "Permissions saved", request, context)
    }

    /// `POST /_admin/environments/<env>/schemas`; the admin API's 400/409 message is shown as it is.
    private func applySchemas(
        _ session: ConsoleSession, _ schemas: JSONObject, back: String, failBack: String? = nil, notice: String,
        _ request: Request, _ context: StackMobRequestContext
    ) async throws -> Response {
        let reply = try await client.send(
            .post, adminPath(session, "/schemas"), body: ["schemas": .object(schemas)], csrf: session.csrf, from: request, context: context)
        guard reply.isSuccess else { return Self.redirect(pagePath(session, failBack ?? back), error: reply.error) }
        return Self.redirect(pagePath(session, back), notice: notice)
    }

    /// The environment's schemas in the declaration format, by name.
    func schemaDocument(_ session: ConsoleSession, _ request: Request, _ context: StackMobRequestContext) async throws -> JSONObject {
        let reply = try await client.send(.get, adminPath(session, "/schemas"), from: request, context: context)
        return reply.object["schemas"]?.objectValue ?? [:]
    }

    /// The number of objects matching `query`, from `Range: objects=0-0`'s `Content-Range` total.
    func objectCount(_ session: ConsoleSession, schema: String, query: String, _ request: Request, _ context: StackMobRequestContext) async throws -> Int? {
        let reply = try await client.send(
            .get, adminPath(session, "/objects/\(ConsoleForm.encode(schema))") + (query.isEmpty ? "" : "?" + query),
            headers: [.range: "objects=0-0"], from: request, context: context)
        guard reply.isSuccess else { return nil }
        if let range = reply.headers[.contentRange], let total = range.split(separator: "/").last.flatMap({ Int($0) }) { return total }
        return reply.array.count
    }

    static func primaryKey(_ schema: String, _ declaration: JSONValue) -> String {
        declaration.objectValue?["primary_key"]?.stringValue ?? "\(schema)_id"
    }

    /// Milliseconds since 1970 as a readable UTC time.
    static func date(_ value: JSONValue?) -> String {
        guard let ms = value?.integerValue else { return "" }
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }
}
