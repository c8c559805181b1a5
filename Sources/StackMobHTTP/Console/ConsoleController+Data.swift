import Foundation
import HTTPTypes
import Hummingbird
import StackMobCore

/// The data browser: `GET …/objects/<schema>?<filters>` with `Range` and `X-StackMob-OrderBy`,
/// and `GET`/`POST`/`PUT`/`DELETE` of one object, all through the admin API's objects routes
/// (the StackMob API's own handlers acting as the private key).
extension ConsoleController {
    static let operators: [(value: String, label: String)] = [
        ("", "="), ("ne", "≠"), ("lt", "<"), ("lte", "≤"), ("gt", ">"), ("gte", "≥"), ("in", "in (a,b,…)"), ("nin", "not in"),
        ("null", "is null (true/false)"), ("empty", "is empty (true/false)"), ("near", "near (lat,lon)"), ("within", "within (lat,lon,km)"),
    ]
    static let pageSizes = [20, 50, 100]
    static let systemFields = ["createddate", "lastmoddate", "sm_owner"]

    @Sendable func data(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let session = try await signedIn(request, context)
        let query = ConsoleForm.query(request)
        let document = try await schemaDocument(session, request, context)
        var page = Self.banners(request)
        page["title"] = "Data"
        let chosen = query.trimmed("schema").flatMap { document[$0] == nil ? nil : $0 }
        page["schemaChoices"] = document.keys.sorted().map { ["name": $0, "selected": $0 == chosen] as [String: Any] }
        guard let schema = chosen, let declaration = document[schema] else {
            return ConsolePages.shared.response("data", page, session: session)
        }
        page["title"] = "Data: \(schema)"
        page["schema"] = schema
        let primaryKey = Self.primaryKey(schema, declaration)
        let types = (declaration.objectValue?["fields"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
        let fieldNames = [primaryKey] + types.keys.sorted() + Self.systemFields

        // Filters: up to three rows of field, operator and value, plus any extra rows sent.
        let (fs, ops, vs) = (query.all("f"), query.all("o"), query.all("v"))
        var conditions: [String] = []
        var rows: [[String: Any]] = []
        for n in 0..<max(3, fs.count) {
            let field = n < fs.count ? fs[n] : "", op = n < ops.count ? ops[n] : "", value = n < vs.count ? vs[n] : ""
            if !field.isEmpty {
                conditions.append(ConsoleForm.encode(field) + (op.isEmpty ? "" : ConsoleForm.encode("[\(op)]")) + "=" + ConsoleForm.encode(value))
            }
            rows.append([
                "n": n + 1, "value": value,
                "fields": fieldNames.map { ["name": $0, "selected": $0 == field] as [String: Any] },
                "operators": Self.operators.map { ["value": $0.value, "label": $0.label, "selected": $0.value == op] as [String: Any] },
            ])
        }
        page["filters"] = rows
        let order = query.trimmed("order").flatMap { fieldNames.contains($0) ? $0 : nil }
        let ascending = query["dir"] != "desc"
        page["orderFields"] = fieldNames.map { ["name": $0, "selected": $0 == order] as [String: Any] }
        page["asc"] = ascending
        let size = query["size"].flatMap(Int.init).flatMap { Self.pageSizes.contains($0) ? $0 : nil } ?? 20
        page["sizes"] = Self.pageSizes.map { ["value": $0, "selected": $0 == size] as [String: Any] }
        let start = max(0, query["start"].flatMap(Int.init) ?? 0)

        var headers: HTTPFields = [.range: "objects=\(start)-\(start + size - 1)"]
        if let order { headers[HTTPField.Name("X-StackMob-OrderBy")!] = "\(order):\(ascending ? "asc" : "desc")" }
        let filter = conditions.joined(separator: "&")
        let path = adminPath(session, "/objects/\(ConsoleForm.encode(schema))") + (filter.isEmpty ? "" : "?" + filter)
        let reply = try await client.send(.get, path, headers: headers, from: request, context: context)
        guard reply.isSuccess else {
            page["error"] = reply.error
            return ConsolePages.shared.response("data", page, session: session, status: .ok)
        }
        let objects = reply.array.compactMap(\.objectValue)
        var total = objects.count + start
        if let range = reply.headers[.contentRange], let value = range.split(separator: "/").last.flatMap({ Int($0) }) {
            total = value
        } else if objects.isEmpty && start > 0 {
            total = try await objectCount(session, schema: schema, query: filter, request, context) ?? 0
        }
        if total > 0 && !objects.isEmpty {
            page["total"] = total
            page["first"] = start + 1
            page["last"] = start + objects.count
        }
        let keep = query.pairs.filter { !["start", "notice", "error"].contains($0.0) }
            .map { ConsoleForm.encode($0.0) + "=" + ConsoleForm.encode($0.1) }.joined(separator: "&")
        let here = pagePath(session, "/data?") + keep
        if start > 0 { page["previous"] = here + "&start=\(max(0, start - size))" }
        if start + objects.count < total { page["next"] = here + "&start=\(start + size)" }
        page["newHref"] = pagePath(session, "/data/\(ConsoleForm.encode(schema))/new")

        page["columns"] = fieldNames
        page["rows"] = objects.map { object -> [String: Any] in
            ["cells": fieldNames.map { name -> [String: Any] in
                let value = object[name] ?? .null
                if name == primaryKey, let id = value.stringValue ?? value.integerValue.map(String.init) {
                    return ["text": id, "href": pagePath(session, "/data/\(ConsoleForm.encode(schema))/\(ConsoleForm.encode(id))")]
                }
                if types[name] == "binary", let url = value.stringValue, url.hasPrefix("http") { return ["text": "file", "href": url] }
                if name == "createddate" || name == "lastmoddate" { return ["text": Self.date(value)] }
                return ["text": Self.readable(value)]
            }]
        }
        return ConsolePages.shared.response("data", page, session: session)
    }

    @Sendable func object(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let session = try await signedIn(request, context)
        let (schema, id) = (context.parameters.get("schema") ?? "", context.parameters.get("id") ?? "")
        let reply = try await client.send(.get, objectPath(session, schema, id), from: request, context: context)
        guard reply.isSuccess else { return Self.redirect(pagePath(session, "/data?schema=\(ConsoleForm.encode(schema))"), error: reply.error) }
        var page = Self.banners(request)
        page["title"] = "\(schema) \(id)"
        page["schema"] = schema
        page["json"] = JSONWriter.pretty(reply.json ?? .null)
        page["action"] = pagePath(session, "/data/\(ConsoleForm.encode(schema))/\(ConsoleForm.encode(id))")
        page["backHref"] = pagePath(session, "/data?schema=\(ConsoleForm.encode(schema))")
        let types = (try await schemaDocument(session, request, context)[schema]?.objectValue?["fields"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
        page["links"] = reply.object.sorted { $0.key < $1.key }.compactMap { name, value -> [String: Any]? in
            guard types[name] == "binary", let url = value.stringValue, url.hasPrefix("http") else { return nil }
            // An image is previewed; the page's Content-Security-Policy loads it only from this
            // server or over https.
            let image = ["png", "jpg", "jpeg", "gif", "webp"].contains(url.split(separator: ".").last.map { $0.lowercased() } ?? "")
            return ["name": name, "url": url, "image": image]
        }
        return ConsolePages.shared.response("object", page, session: session)
    }

    @Sendable func newObject(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let session = try await signedIn(request, context)
        let schema = context.parameters.get("schema") ?? ""
        var page = Self.banners(request)
        page["title"] = "New \(schema) object"
        page["schema"] = schema
        page["isNew"] = true
        page["json"] = ConsoleForm.query(request)["json"] ?? "{\n}"
        page["action"] = pagePath(session, "/data/\(ConsoleForm.encode(schema))")
        page["backHref"] = pagePath(session, "/data?schema=\(ConsoleForm.encode(schema))")
        return ConsolePages.shared.response("object", page, session: session)
    }

    @Sendable func createObject(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let (session, form) = try await posted(request, context)
        let schema = context.parameters.get("schema") ?? ""
        let back = pagePath(session, "/data/\(ConsoleForm.encode(schema))/new")
        guard let body = Self.parseObject(form["json"]) else { return Self.redirect(back, error: "The object must be a JSON object") }
        let reply = try await client.send(.post, adminPath(session, "/objects/\(ConsoleForm.encode(schema))"), body: .object(body),
                                          csrf: session.csrf, from: request, context: context)
        guard reply.isSuccess else { return Self.redirect(back, error: reply.error) }
        let document = try await schemaDocument(session, request, context)
        let key = Self.primaryKey(schema, document[schema] ?? .null)
        let id = reply.object[key]?.stringValue ?? reply.object[key]?.integerValue.map(String.init) ?? ""
        return Self.redirect(pagePath(session, "/data/\(ConsoleForm.encode(schema))/\(ConsoleForm.encode(id))"), notice: "Object created")
    }

    @Sendable func updateObject(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let (session, form) = try await posted(request, context)
        let (schema, id) = (context.parameters.get("schema") ?? "", context.parameters.get("id") ?? "")
        let back = pagePath(session, "/data/\(ConsoleForm.encode(schema))/\(ConsoleForm.encode(id))")
        guard var body = Self.parseObject(form["json"]) else { return Self.redirect(back, error: "The object must be a JSON object") }
        // The stored system fields and an unchanged primary key are not edits.
        let document = try await schemaDocument(session, request, context)
        let key = Self.primaryKey(schema, document[schema] ?? .null)
        for name in ["createddate", "lastmoddate"] { body[name] = nil }
        if body[key]?.stringValue == id { body[key] = nil }
        let reply = try await client.send(.put, objectPath(session, schema, id), body: .object(body), csrf: session.csrf, from: request, context: context)
        guard reply.isSuccess else { return Self.redirect(back, error: reply.error) }
        return Self.redirect(back, notice: "Object saved")
    }

    @Sendable func deleteObject(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let (session, _) = try await posted(request, context)
        let (schema, id) = (context.parameters.get("schema") ?? "", context.parameters.get("id") ?? "")
        let reply = try await client.send(.delete, objectPath(session, schema, id), csrf: session.csrf, from: request, context: context)
        let list = pagePath(session, "/data?schema=\(ConsoleForm.encode(schema))")
        guard reply.isSuccess else { return Self.redirect(list, error: reply.error) }
        return Self.redirect(list, notice: "Object \(id) deleted")
    }

    private func objectPath(_ session: ConsoleSession, _ schema: String, _ id: String) -> String {
        adminPath(session, "/objects/\(ConsoleForm.encode(schema))/\(ConsoleForm.encode(id))")
    }

    static func parseObject(_ text: String?) -> JSONObject? {
        guard let text, let value = try? JSONParser.parse(text) else { return nil }
        return value.objectValue
    }

    /// A value as table text: geopoints as "lat, lon", other structures as compact JSON.
    static func readable(_ value: JSONValue) -> String {
        switch value {
        case .null: return ""
        case .string(let text): return text
        case .object(let object):
            if let lat = object["lat"]?.numberValue, let lon = object["lon"]?.numberValue { return "\(lat), \(lon)" }
            return JSONWriter.string(value)
        default: return JSONWriter.string(value)
        }
    }
}
