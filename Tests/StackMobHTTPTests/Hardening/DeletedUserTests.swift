import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// A deleted user leaves nothing that still signs in: the attack registers the login again
/// after the account was deleted and presents what the old account held.
@Suite("A deleted user's sessions, refresh tokens and temporary password die with it")
struct DeletedUserTests {
    enum Deletion: String, CaseIterable, Sendable {
        case byID, byQuery, byAdminAPI
    }

    @Test("a token, a refresh token and a temporary password of a deleted user do not work for the next account with its login", arguments: Deletion.allCases)
    func noGhostCredentials(deletion: Deletion) async throws {
        let clock = ManualClock()
        try await AdminAPITests.run(clock: clock) { client in
            let auth = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
            #expect(try await client.post("/user", ["username": "chief", "password": "first"]).status == .created)
            let old = try await client.login([("username", "chief"), ("password", "first")])
            let temporary = try await client.post("/_admin/environments/development/users/user/chief/temporary_password", .object([:]), headers: auth)
            let temporaryPassword = try #require(temporary.object?["temporary_password"]?.stringValue)

            let deleted: APIResponse
            switch deletion {
            case .byID:
                deleted = try await client.signed(.delete, "/user/chief", session: old, ts: clock.nowMilliseconds() / 1000)
            case .byQuery:
                deleted = try await client.oauth1(.delete, "/user?username=chief", shape: .java, timestamp: clock.nowMilliseconds() / 1000)
            case .byAdminAPI:
                deleted = try await client.delete("/_admin/environments/development/objects/user/chief", headers: auth)
            }
            #expect(deleted.status == .ok, "\(deleted.text)")

            // Someone else registers the login and stores a note.
            #expect(try await client.post("/user", ["username": "chief", "password": "second"]).status == .created)
            let current = try await client.login([("username", "chief"), ("password", "second")])
            #expect(try await client.signed(.post, "/note", session: current, ts: clock.nowMilliseconds() / 1000, json: ["text": "mine"]).status == .created)

            let asOld = try await client.signed(.get, "/user/loggedInUser", session: old, ts: clock.nowMilliseconds() / 1000)
            #expect(asOld.status == .unauthorized, "\(asOld.text)")
            let edit = try await client.signed(.put, "/user/chief", session: old, ts: clock.nowMilliseconds() / 1000, json: ["email": "thief@example.com"])
            #expect(edit.status == .unauthorized, "\(edit.text)")
            let refreshed = try await client.postForm(
                "/user/refreshToken", [("refresh_token", old.refreshToken), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")])
            #expect(refreshed.status == .unauthorized, "\(refreshed.text)")
            let viaTemporary = try await client.postForm(
                "/user/accessToken",
                [("username", "chief"), ("password", temporaryPassword), ("new_password", "taken"), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")])
            #expect(viaTemporary.status == .unauthorized, "\(viaTemporary.text)")
            // The new account is untouched.
            #expect(try await client.signed(.get, "/user/loggedInUser", session: current, ts: clock.nowMilliseconds() / 1000).object?["email"] == nil)
            #expect(try await client.login([("username", "chief"), ("password", "second")]).accessToken.isEmpty == false)
        }
    }
}
