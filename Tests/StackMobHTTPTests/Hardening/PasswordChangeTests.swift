import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// Every save of a password goes through one change path (`Datastore.applyUpdate`): only the
/// private key (and the admin API and console, which act with it) changes a password by saving
/// the user, and that ends the user's sessions and temporary password; everyone else changes a
/// password with `resetPassword` (the old one) or `forgotPassword`. A nested object never stores
/// a password in plain text.
@Suite("Password changes: one path, old password or private key, sessions revoked")
struct PasswordChangeTests {
    @Test("PUT /user/<id> with a new password is refused to the user and to others alike, and the answer does not tell whether a password is the current one")
    func putRefused() async throws {
        let clock = ManualClock()
        try await TestServer.run(clock: clock) { client in
            #expect(try await client.post("/user", ["username": "bob", "password": "bob-pw"]).status == .created)
            #expect(try await client.post("/user", ["username": "eve", "password": "eve-pw"]).status == .created)
            let bob = try await client.login([("username", "bob"), ("password", "bob-pw")])
            let eve = try await client.login([("username", "eve"), ("password", "eve-pw")])
            let ts = clock.nowMilliseconds() / 1000

            let own = try await client.signed(.put, "/user/bob", session: bob, ts: ts, json: ["password": "taken-over"])
            #expect(own.status == .badRequest, "\(own.text)")
            #expect(own.object?["error"]?.stringValue?.contains("resetPassword") == true, "\(own.text)")
            // Someone else, on a user schema anyone may update (development's default), is refused
            // the same way whether or not the password is bob's.
            let guessRight = try await client.signed(.put, "/user/bob", session: eve, ts: ts, json: ["password": "bob-pw"])
            let guessWrong = try await client.signed(.put, "/user/bob", session: eve, ts: ts, json: ["password": "nope"])
            #expect(guessRight.status == .badRequest && guessRight.text == guessWrong.text, "\(guessRight.text) / \(guessWrong.text)")
            let anonymous = try await client.put("/user/bob", ["password": "bob-pw"])
            #expect(anonymous.status == .badRequest && anonymous.text == guessWrong.text, "\(anonymous.text)")
            // A nested upsert that would update bob's password is refused too.
            let upsert = try await client.signed(
                .post, "/user", session: eve, ts: ts, json: ["username": "bob", "password": "taken-over"], headers: ["X-StackMob-Relations": ""])
            #expect(upsert.status == .badRequest, "\(upsert.text)")

            // bob saving his whole object, current password included, changes what he changed.
            let save = try await client.signed(.put, "/user/bob", session: bob, ts: ts, json: ["password": "bob-pw", "email": "bob@example.com"])
            #expect(save.status == .ok && save.object?["email"] == "bob@example.com" && save.object?["password"] == nil, "\(save.text)")
            #expect(try await client.signed(.get, "/user/loggedInUser", session: bob, ts: ts).status == .ok)
            _ = try await client.login([("username", "bob"), ("password", "bob-pw")])
            for password in ["taken-over", "nope"] {
                #expect(try await client.postForm(
                    "/user/accessToken", [("username", "bob"), ("password", password), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")]
                ).status == .unauthorized)
            }
        }
    }

    @Test("a password the private key or the admin API saves ends the user's sessions, refresh tokens and temporary password", arguments: ["private key", "admin API"])
    func privateKeyRevokes(path: String) async throws {
        let clock = ManualClock()
        try await AdminAPITests.run(clock: clock, configure: { $0.development.oauth1TimestampWindowSeconds = 0 }) { client in
            let auth = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
            #expect(try await client.post("/user", ["username": "bob", "password": "bob-pw"]).status == .created)
            let session = try await client.login([("username", "bob"), ("password", "bob-pw")])
            let temporary = try await client.post("/_admin/environments/development/users/user/bob/temporary_password", .object([:]), headers: auth)
            let temporaryPassword = try #require(temporary.object?["temporary_password"]?.stringValue)

            let changed = switch path {
            case "private key": try await client.oauth1(.put, "/user/bob", shape: .java, json: ["password": "fresh-pw"])
            default: try await client.put("/_admin/environments/development/objects/user/bob", ["password": "fresh-pw"], headers: auth)
            }
            #expect(changed.status == .ok, "\(changed.text)")

            let ts = clock.nowMilliseconds() / 1000
            #expect(try await client.signed(.get, "/user/loggedInUser", session: session, ts: ts).status == .unauthorized)
            try await DeletedUserTests.expectRefused(client, refreshToken: session.refreshToken, login: "bob", temporaryPassword: temporaryPassword)
            _ = try await client.login([("username", "bob"), ("password", "fresh-pw")])
        }
    }

    @Test("a nested object whose relation the same request turned toward the user schema is refused, not stored with a plain-text password")
    func nestedPasswordNeverPlain() async throws {
        try await TestServer.run { client in
            // `a.x` makes squad.x a relationship to user; `b.x` says note, but the transaction
            // writes b.x's object to user, whose password the header hid from hashing.
            let body: JSONValue = [
                "team_id": "t1",
                "a": ["squad_id": "s1", "x": ["username": "first", "password": "first-pw"]],
                "b": ["squad_id": "s2", "x": ["username": "second", "password": "in-plain-text"]],
            ]
            let response = try await client.post("/team", body, headers: ["X-StackMob-Relations": "a=squad&b=squad&a.x=user&b.x=note"])
            #expect(response.status == .badRequest, "\(response.text)")
            #expect(try await client.oauth1(.get, "/user/second", shape: .java).status == .notFound)
            #expect(try await client.oauth1(.get, "/team/t1", shape: .java).status == .notFound, "nothing of the graph was written")
        }
    }
}
