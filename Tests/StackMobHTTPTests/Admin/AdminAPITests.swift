import Foundation
import Logging
import StackMobCore
import StackMobTestSupport
import Testing

/// The admin API (docs/operations.md, "Admin API") over HTTP: its own sign-in, sessions (cookie +
/// CSRF, or bearer), rate limit, audit log, and the schema, deploy and object endpoints.
@Suite("Admin API: operators, sessions, schemas, deploy, objects, audit")
struct AdminAPITests {
    static let password = "correct horse battery"

    /// A server whose production database already holds the operator `ops`.
    static func run<Value: Sendable>(
        withOperator: Bool = true, clock: ManualClock = ManualClock(), logger: Logger = TestServer.quietLogger,
        configure: (inout StackMobConfiguration) -> Void = { _ in }, _ body: @Sendable (StackMobClient) async throws -> Value
    ) async throws -> Value {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configure(&configuration)
            if withOperator {
                try await AdminTool.addOperator(configuration: configuration, storage: try TestServer.storage(configuration), name: "ops", password: password, logger: TestServer.quietLogger)
            }
            return try await TestServer.run(configuration: configuration, clock: clock, logger: logger, body)
        }
    }

    static func signIn(_ client: StackMobClient) async throws -> (token: String, csrf: String, cookie: String) {
        let response = try await client.post("/_admin/session", ["name": "ops", "password": .string(password)])
        guard response.status == .ok, let token = response.object?["token"]?.stringValue, let csrf = response.object?["csrf_token"]?.stringValue
        else { throw TestFailure("sign-in answered \(response.status.code): \(response.text)") }
        return (token, csrf, "sm_admin=\(token)")
    }

    @Test("with no operator the admin API is closed, and says how to open it")
    func closed() async throws {
        try await Self.run(withOperator: false) { client in
            let response = try await client.get("/_admin/environments/development/schemas")
            #expect(response.status == .serviceUnavailable)
            #expect(response.error?.contains("stackmob-server admin add <name>") == true)
            #expect(try await client.post("/_admin/session", ["name": "ops", "password": "x"]).status == .serviceUnavailable)
        }
    }

    @Test("sign-in: wrong passwords are refused then rate limited; a session is a bearer token or an HttpOnly SameSite=Strict cookie")
    func sessions() async throws {
        let clock = ManualClock()
        try await Self.run(clock: clock) { client in
            for _ in 0..<5 {
                let wrong = try await client.post("/_admin/session", ["name": "ops", "password": "guess"])
                #expect(wrong.status == .unauthorized && wrong.error == "Invalid operator name or password")
            }
            let limited = try await client.post("/_admin/session", ["name": "ops", "password": .string(Self.password)])
            #expect(limited.status == .tooManyRequests)
            #expect(limited.header("Retry-After") != nil)
            clock.advance(by: 15 * 60 * 1000 + 1000)
            let response = try await client.post("/_admin/session", ["name": "ops", "password": .string(Self.password)])
            #expect(response.status == .ok)
            let cookie = try #require(response.header("Set-Cookie"))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/_admin"))
            let token = try #require(response.object?["token"]?.stringValue)
            // Refusals: no session (the app's public key means nothing here), a bad token.
            #expect(try await client.get("/_admin/environments/development/schemas").status == .unauthorized)
            #expect(try await client.get("/_admin/audit", headers: ["Authorization": "Bearer nope"]).status == .unauthorized)
            #expect(try await client.get("/_admin/session", headers: ["Authorization": "Bearer \(token)"]).object?["operator"] == "ops")
            // A cookie-authenticated write needs the CSRF token; a bearer write does not.
            let csrf = try #require(response.object?["csrf_token"]?.stringValue)
            let body: JSONValue = ["schemas": ["note": ["fields": ["text": "string"]]]]
            let noCSRF = try await client.post("/_admin/environments/development/schemas", body, headers: ["Cookie": "sm_admin=\(token)"])
            #expect(noCSRF.status == .forbidden)
            let wrongCSRF = try await client.post(
                "/_admin/environments/development/schemas", body, headers: ["Cookie": "sm_admin=\(token)", "X-CSRF-Token": "x"])
            #expect(wrongCSRF.status == .forbidden)
            let withCSRF = try await client.post(
                "/_admin/environments/development/schemas", body, headers: ["Cookie": "sm_admin=\(token)", "X-CSRF-Token": csrf])
            #expect(withCSRF.status == .ok, "\(withCSRF.text)")
            // Sign-out ends the session.
            #expect(try await client.delete("/_admin/session", headers: ["Authorization": "Bearer \(token)"]).status == .ok)
            #expect(try await client.get("/_admin/session", headers: ["Authorization": "Bearer \(token)"]).status == .unauthorized)
        }
    }

    @Test("sign-in: a name holding U+0000 is refused, never read as another operator's name outside its rate limit")
    func nameWithNUL() async throws {
        try await Self.run { client in
            for _ in 0..<5 {
                #expect(try await client.post("/_admin/session", ["name": "ops", "password": "guess"]).status == .unauthorized)
            }
            #expect(try await client.post("/_admin/session", ["name": "ops", "password": .string(Self.password)]).status == .tooManyRequests)
            // Before: SQLite read "ops\u{0}1" as "ops" and signed it in, outside the limit on "ops".
            for suffix in ["1", "2"] {
                let response = try await client.post("/_admin/session", ["name": .string("ops\u{0}\(suffix)"), "password": .string(Self.password)])
                #expect(response.status == .badRequest, "\(response.text)")
                #expect(response.text.contains("U+0000"))
            }
            let inKey = try await client.post("/_admin/session", ["name": "ops", "password": .string(Self.password), "x\u{0}": 1])
            #expect(inKey.status == .badRequest)
        }
    }

    @Test("schemas: added to production without a restart, then accepted, enforced and queried over the StackMob API; bad input is a 400 naming the key")
    func schemas() async throws {
        let clock = ManualClock()
        try await Self.run(clock: clock) { client in
            let auth = ["Authorization": "Bearer \(try await Self.signIn(client).token)"]
            let base = "/_admin/environments/production/schemas"
            for (body, key) in [
                (["schemas": ["todo": ["fields": ["due": "date"]]]] as JSONValue, "schemas.todo.fields.due"),
                (["schemas": ["Todo": [:]]], "schemas.Todo"),
                (["schemas": ["todo": ["fields": ["tag": "one_to_one:ghost"]]]], "schemas.todo.fields.tag"),
                (["schemas": ["todo": ["permissions": ["read": "friends"]]]], "schemas.todo.permissions.read"),
            ] {
                let refused = try await client.post(base, body, headers: auth)
                #expect(refused.status == .badRequest, "\(refused.text)")
                #expect(refused.error?.hasPrefix(key + ":") == true, "\(refused.text)")
            }
            #expect(try await client.get(base + "/todo", headers: auth).status == .notFound)
            let body: JSONValue = [
                "schemas": [
                    "todo": [
                        "fields": ["title": "string", "done": "boolean", "owner": "one_to_one:user"],
                        "indexes": ["done"], "permissions": ["read": "logged_in", "delete": "not_allowed"],
                    ],
                ],
            ]
            let plan = try await client.post("/_admin/environments/production/deploy", ["schemas": body.objectValue!["schemas"]!, "dry_run": true], headers: auth)
            #expect(plan.object?["applied"] == false)
            #expect(plan.object?["changes"]?.arrayValue?.contains("+ field todo.owner: one_to_one:user") == true)
            let applied = try await client.post(base, body, headers: auth)
            #expect(applied.status == .ok && applied.object?["applied"] == true, "\(applied.text)")
            let read = try await client.get(base + "/todo", headers: auth).object
            #expect(read?["fields"]?.objectValue?["owner"] == "one_to_one:user")
            #expect(read?["permissions"]?.objectValue?["delete"] == "not_allowed")
            // A type change is refused; nothing changes.
            let conflict = try await client.post(base, ["schemas": ["todo": ["fields": ["done": "string", "extra": "string"]]]], headers: auth)
            #expect(conflict.status == .conflict && conflict.error?.contains("schema 'todo', field 'done'") == true)
            #expect(try await client.get(base + "/todo", headers: auth).object?["fields"]?.objectValue?["extra"] == nil)

            let production = client.production()
            #expect(try await production.post("/todo", ["todo_id": "t1", "title": "paint", "done": false]).status == .created)
            #expect(try await production.get("/todo?done=false").status == .unauthorized)  // read: logged_in
            #expect(try await production.post("/user", ["username": "ann", "password": "pw"]).status == .created)
            let ann = try await production.login([("username", "ann"), ("password", "pw")])
            let ts = clock.nowMilliseconds() / 1000
            #expect(try await production.signed(.get, "/todo?done=false", session: ann, ts: ts).array?.count == 1)
            #expect(try await production.signed(.delete, "/todo/t1", session: ann, ts: ts).status == .methodNotAllowed)
        }
    }

    @Test("deploy: a development app built by inference is deployed to production and works there at once")
    func deployFromDevelopment() async throws {
        try await Self.run { client in
            let auth = ["Authorization": "Bearer \(try await Self.signIn(client).token)"]
            let seeded = try await client.post(
                "/post", ["post_id": "p1", "title": "hi", "category": ["category_id": "c1", "name": "news"]],
                headers: ["X-StackMob-Relations": "category=category"])
            #expect(seeded.status == .created)
            let deployed = try await client.post("/_admin/environments/production/deploy", ["from": "development"], headers: auth)
            #expect(deployed.status == .ok && deployed.object?["applied"] == true, "\(deployed.text)")
            let production = client.production()
            let created = try await production.post(
                "/post", ["post_id": "p1", "title": "hi", "category": ["category_id": "c1", "name": "news"]],
                headers: ["X-StackMob-Relations": "category=category"])
            #expect(created.status == .created, "\(created.text)")
            let expanded = try await production.get("/post/p1", headers: ["X-StackMob-Expand": "1"])
            #expect(expanded.object?["category"]?.objectValue?["name"] == "news")
            let again = try await client.post("/_admin/environments/production/deploy", ["from": "development"], headers: auth)
            #expect(again.object?["applied"] == false && again.object?["changes"] == [])
        }
    }

    @Test("objects: list with the query language, create, read, update, delete, as the private key; every change audited")
    func objects() async throws {
        try await Self.run { client in
            let auth = ["Authorization": "Bearer \(try await Self.signIn(client).token)"]
            let setup: JSONValue = ["schemas": ["secret": ["fields": ["level": "integer"], "permissions": ["all": "not_allowed"]]]]
            #expect(try await client.post("/_admin/environments/development/schemas", setup, headers: auth).status == .ok)
            #expect(try await client.post("/secret", ["level": 1]).status == .methodNotAllowed)
            let base = "/_admin/environments/development/objects/secret"
            for level in 1...3 {
                #expect(try await client.post(base, ["secret_id": .string("s\(level)"), "level": .integer(Int64(level))], headers: auth).status == .created)
            }
            let listed = try await client.get(base + "?level[gte]=2", headers: auth.merging(["X-StackMob-OrderBy": "level:desc"]) { a, _ in a })
            #expect(listed.array?.compactMap { $0.objectValue?["secret_id"]?.stringValue } == ["s3", "s2"])
            #expect(try await client.put(base + "/s1", ["level": 9], headers: auth).object?["level"] == 9)
            #expect(try await client.get(base + "/s1", headers: auth).object?["level"] == 9)
            #expect(try await client.delete(base + "/s2", headers: auth).status == .ok)
            #expect(try await client.get(base + "/s2", headers: auth).status == .notFound)
            // Without a session: refused, whatever app key the request carries.
            #expect(try await client.get(base).status == .unauthorized)
            #expect(try await client.get("/_admin/environments/staging/objects/secret", headers: auth).status == .notFound)

            let audit = try await client.get("/_admin/audit", headers: auth).array ?? []
            let actions = audit.compactMap { $0.objectValue?["action"]?.stringValue }
            #expect(actions.filter { $0 == "objects.create" }.count == 3)
            #expect(actions.contains("objects.update") && actions.contains("objects.delete") && actions.contains("schemas.apply"))
            #expect(actions.contains("operator.sign_in") && actions.contains("operator.add"))
            let update = try #require(audit.first { $0.objectValue?["action"] == "objects.update" }?.objectValue)
            #expect(update["operator"] == "ops" && update["detail"]?.objectValue?["id"] == "s1")
            #expect(update["at"]?.integerValue != nil)
            #expect(try await client.get("/_admin/audit?limit=0", headers: auth).status == .badRequest)
        }
    }

    @Test("no operator password or session secret appears in any log line")
    func secretsNotLogged() async throws {
        let (logger, store) = CapturingLogHandler.logger()
        let secrets = try await Self.run(logger: logger) { client in
            _ = try await client.post("/_admin/session", ["name": "ops", "password": "wrong-password-1"])
            let session = try await Self.signIn(client)
            _ = try await client.get("/_admin/audit", headers: ["Authorization": "Bearer \(session.token)"])
            _ = try await client.post(
                "/_admin/environments/development/schemas", ["schemas": ["a": [:]]], headers: ["Cookie": session.cookie, "X-CSRF-Token": session.csrf])
            return [session.token, session.csrf, Self.password, "wrong-password-1"]
        }
        let lines = store.all.map(\.fullText)
        #expect(lines.contains { $0.contains("Operator signed in") })
        for secret in secrets {
            #expect(!lines.contains { $0.contains(secret) }, "a log line holds a secret")
        }
    }
}
