import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// The admin API's user, key, push and custom-code endpoints (docs/operations.md, "Admin API").
@Suite("Admin API: users, keys, push, custom code")
struct AdminUsersKeysTests {
    @Test("users: search without passwords, a temporary password, the forgot-password mail, revoked sessions; all audited")
    func users() async throws {
        try await AdminAPITests.run { client in
            let auth = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
            #expect(try await client.post("/user", ["username": "ann", "password": "pw", "email": "ann@example.com"]).status == .created)
            #expect(try await client.post("/user", ["username": "bob", "password": "pw"]).status == .created)
            let base = "/_admin/environments/development/users/user"
            let found = try await client.get(base + "?email=ann@example.com", headers: auth)
            #expect(found.array?.count == 1)
            #expect(!found.text.contains("pbkdf2") && found.array?.first?.objectValue?["password"] == nil)
            #expect(try await client.get("/_admin/environments/development/users/todo", headers: auth).status == .notFound)

            let session = try await client.login([("username", "ann"), ("password", "pw")])
            let revoked = try await client.delete(base + "/ann/sessions", headers: auth)
            #expect(revoked.status == .ok)
            let refreshed = try await client.postForm("/user/refreshToken", [("refresh_token", session.refreshToken), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")])
            #expect(refreshed.status == .unauthorized)

            let temporary = try await client.post(base + "/bob/temporary_password", .object([:]), headers: auth)
            let password = try #require(temporary.object?["temporary_password"]?.stringValue)
            // A temporary password logs in only with a new password.
            let login = try await client.postForm(
                "/user/accessToken", [("username", "bob"), ("password", password), ("new_password", "n3w"), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")])
            #expect(login.status == .ok, "\(login.text)")
            #expect(try await client.post(base + "/ann/forgot_password", .object([:]), headers: auth).status == .ok)
            #expect(try await client.post(base + "/nobody/forgot_password", .object([:]), headers: auth).status == .unauthorized)

            let actions = (try await client.get("/_admin/audit", headers: auth).array ?? []).compactMap { $0.objectValue?["action"]?.stringValue }
            #expect(actions.contains("users.revoke_sessions") && actions.contains("users.temporary_password") && actions.contains("users.forgot_password"))
            #expect(try await client.get("/_admin/audit", headers: auth).text.contains(password) == false)
        }
    }

    @Test("role membership: an operator adds a user to a role through aclrole, and the role's schema admits her at once")
    func roleMembership() async throws {
        let clock = ManualClock()
        try await AdminAPITests.run(clock: clock) { client in
            let auth = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
            let vault: JSONValue = ["schemas": ["vault": ["fields": ["v": "integer"], "permissions": ["all": "role:staff"]]]]
            let declared = try await client.post("/_admin/environments/development/schemas", vault, headers: auth)
            #expect(declared.status == .ok, "\(declared.text)")
            for name in ["ann", "bob"] {
                #expect(try await client.post("/user", ["username": .string(name), "password": "pw"]).status == .created)
            }
            let ann = try await client.login([("username", "ann"), ("password", "pw")])
            let ts = clock.nowMilliseconds() / 1000
            #expect(try await client.signed(.get, "/vault", session: ann, ts: ts).status == .unauthorized)

            let role = try await client.post("/_admin/environments/development/objects/aclrole", ["aclrole_id": "staff", "users": ["ann"]], headers: auth)
            #expect(role.status == .created, "\(role.text)")
            #expect(try await client.signed(.get, "/vault", session: ann, ts: ts).status == .ok)
            let bob = try await client.login([("username", "bob"), ("password", "pw")])
            #expect(try await client.signed(.get, "/vault", session: bob, ts: ts).status == .unauthorized)
            // Membership changes in place: bob in, ann out.
            let changed = try await client.put("/_admin/environments/development/objects/aclrole/staff", ["users": ["bob"]], headers: auth)
            #expect(changed.status == .ok, "\(changed.text)")
            #expect(try await client.signed(.get, "/vault", session: bob, ts: ts).status == .ok)
            #expect(try await client.signed(.get, "/vault", session: ann, ts: ts).status == .unauthorized)
            let actions = (try await client.get("/_admin/audit", headers: auth).array ?? []).compactMap { $0.objectValue?["action"]?.stringValue }
            #expect(actions.contains("objects.create") && actions.contains("objects.update"))
        }
    }

    @Test("keys are shown to operators only (and audited); push outbox and custom-code methods are listed")
    func keysPushCustomCode() async throws {
        try await AdminAPITests.run { client in
            #expect(try await client.get("/_admin/environments/production/keys").status == .unauthorized)
            let auth = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
            let keys = try await client.get("/_admin/environments/production/keys", headers: auth).object
            #expect(keys?["public_key"] == .string(TestServer.productionPublicKey))
            #expect(keys?["private_key"] == .string(TestServer.productionPrivateKey))
            #expect(try await client.get("/_admin/environments/development/push", headers: auth).object?["outbox"]?.objectValue != nil)
            #expect(try await client.get("/_admin/environments/development/custom_code", headers: auth).object?["methods"] == [])
            let audit = try await client.get("/_admin/audit?limit=1", headers: auth).array?.first?.objectValue
            #expect(audit?["action"] == "keys.show")
        }
    }
}

@Suite("Admin API: key rotation")
struct AdminKeyRotationTests {
    @Test("a rotated public key is in force at once and kept in keys.json; keys set in the configuration are refused")
    func rotate() async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.production.publicKey = nil
            configuration.production.privateKey = nil
            try await AdminTool.addOperator(configuration: configuration, storage: try TestServer.storage(configuration), name: "ops", password: AdminAPITests.password, logger: TestServer.quietLogger)
            let keysFile = (directory as NSString).appendingPathComponent("keys.json")
            try await TestServer.run(configuration: configuration) { client in
                let auth = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
                let old = try #require(try await client.get("/_admin/environments/production/keys", headers: auth).object?["public_key"]?.stringValue)
                var production = client.production()
                production.publicKey = old
                #expect(try await production.get("/listapi").status == .ok)
                let rotated = try await client.post("/_admin/environments/production/keys/rotate", ["key": "public"], headers: auth)
                let fresh = try #require(rotated.object?["public_key"]?.stringValue)
                #expect(fresh != old && fresh.count == 36)
                #expect(try await production.get("/listapi").status == .unauthorized)
                production.publicKey = fresh
                #expect(try await production.get("/listapi").status == .ok)
                #expect(String(decoding: FileManager.default.contents(atPath: keysFile) ?? Data(), as: UTF8.self).contains(fresh))
                // Development's keys come from the configuration.
                let refused = try await client.post("/_admin/environments/development/keys/rotate", ["key": "private"], headers: auth)
                #expect(refused.status == .conflict)
                #expect(try await client.post("/_admin/environments/production/keys/rotate", ["key": "both"], headers: auth).status == .badRequest)
                let audit = try await client.get("/_admin/audit?limit=1", headers: auth).array?.first?.objectValue
                #expect(audit?["action"] == "keys.rotate")
            }
        }
    }
}

@Suite("Admin API: push")
struct AdminPushTests {
    @Test("push: tokens by user, a send to users (audited) lands in the outbox; no session is refused")
    func push() async throws {
        try await AdminAPITests.run { client in
            let token = String(repeating: "ab", count: 32)
            // Public-key registration (development), through the legacy /push/ path of the API port.
            let registered = try await client.post(
                "/push/register_device_token_universal", ["userId": "ann", "token": ["token": .string(token), "type": "iOS"]])
            #expect(registered.status == .ok, "\(registered.text)")
            #expect(try await client.get("/_admin/environments/development/push/tokens?user=ann").status == .unauthorized)
            let auth = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
            let tokens = try await client.get("/_admin/environments/development/push/tokens?user=ann", headers: auth)
            #expect(tokens.array?.count == 1, "\(tokens.text)")
            let sent = try await client.post(
                "/_admin/environments/development/push/notifications", ["payload": ["alert": "hi"], "users": ["ann"]], headers: auth)
            #expect(sent.status == .ok, "\(sent.text)")
            let outbox = try await client.get("/_admin/environments/development/push", headers: auth).object?["outbox"]?.objectValue ?? [:]
            #expect(outbox.values.compactMap(\.integerValue).reduce(0, +) == 1, "\(outbox)")
            let audit = try await client.get("/_admin/audit?limit=1", headers: auth).array?.first?.objectValue
            #expect(audit?["action"] == "push.send")
        }
    }
}

@Suite("Admin API: custom code")
struct AdminCustomCodeTests {
    @Test("custom-code methods are listed with their last failures")
    func lastFailures() async throws {
        try await TestServer.withDataDirectory { directory in try await RefusedPort.with { port in
            var configuration = TestServer.configuration(dataDirectory: directory)
            let hook = "http://127.0.0.1:\(port)/hook"
            configuration.development.customCode = [CustomCodeMethod(name: "broken", url: hook)]
            try await AdminTool.addOperator(configuration: configuration, storage: try TestServer.storage(configuration), name: "ops", password: AdminAPITests.password, logger: TestServer.quietLogger)
            try await TestServer.run(configuration: configuration) { client in
                #expect(try await client.get("/broken").status == .serviceUnavailable)
                let auth = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
                let listed = try await client.get("/_admin/environments/development/custom_code", headers: auth).object?["methods"]?.arrayValue
                let method = try #require(listed?.first?.objectValue)
                #expect(method["name"] == "broken" && method["url"] == .string(hook))
                #expect(method["last_failures"]?.arrayValue?.first?.objectValue?["reason"] == "unreachable")
            }
        } }
    }
}
