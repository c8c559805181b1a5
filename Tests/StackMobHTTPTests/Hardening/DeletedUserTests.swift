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
            try await Self.expectRefused(client, refreshToken: old.refreshToken, login: "chief", temporaryPassword: temporaryPassword)
            // The new account is untouched.
            #expect(try await client.signed(.get, "/user/loggedInUser", session: current, ts: clock.nowMilliseconds() / 1000).object?["email"] == nil)
            #expect(try await client.login([("username", "chief"), ("password", "second")]).accessToken.isEmpty == false)
        }
    }

    @Test("a stranger who registers a deleted user's login reads nothing the old account owned, is in none of its relationships, and gets none of its roles, then or after a restart", arguments: [Deletion.byID, .byQuery])
    func noInheritance(deletion: Deletion) async throws {
        let clock = ManualClock()
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.development.access = AccessPolicy(
                schemas: [
                    "note": SchemaPermissions(create: .loggedIn, read: .owner, update: .owner, delete: .owner),
                    "secret": SchemaPermissions(all: .role("admin")),
                    "project": SchemaPermissions(create: .loggedIn, read: .objectRelation("members"), update: .objectRelation("members")),
                ],
                roles: ["admin": ["chief"]])
            let noteID = "n1"
            try await TestServer.run(configuration: configuration, clock: clock) { client in
                let fixture = try await ACLFixture.make(client, clock: clock, users: ["chief": [:], "pat": [:]])
                let note = try await fixture.send(.user("chief"), .post, "/note", json: ["note_id": .string(noteID), "text": "chief's private note"])
                #expect(note.status == .created, "\(note.text)")
                #expect(try await fixture.send(.user("chief"), .post, "/secret", json: ["secret_id": "s1"]).status == .created)
                let project = try await fixture.send(
                    .privateKey, .post, "/project", json: ["project_id": "p1", "members": ["chief", "pat"]], headers: ["X-StackMob-Relations": "members=user"])
                #expect(project.status == .created, "\(project.text)")
                #expect(try await fixture.send(.user("chief"), .get, "/project/p1").status == .ok)

                let deleted = switch deletion {
                case .byQuery: try await fixture.send(.privateKey, .delete, "/user?username=chief")
                default: try await fixture.send(.privateKey, .delete, "/user/chief")
                }
                #expect(deleted.status == .ok, "\(deleted.text)")

                // The objects stay, without the deleted owner; the role and the project no longer name it.
                let kept = try await fixture.send(.privateKey, .get, "/note/\(noteID)")
                #expect(kept.object?["text"] == "chief's private note" && kept.object?["sm_owner"] == nil, "\(kept.text)")
                #expect(try await fixture.send(.privateKey, .get, "/aclrole/admin").object?["users"] == [])
                #expect(try await fixture.send(.privateKey, .get, "/project/p1").object?["members"] == ["pat"])

                try await Self.expectStrangerInheritsNothing(client, clock: clock, noteID: noteID, registers: true)
            }
            // The configured member is not granted again to the account now holding the login.
            try await TestServer.run(configuration: configuration, clock: clock) { client in
                try await Self.expectStrangerInheritsNothing(client, clock: clock, noteID: noteID, registers: false)
                let fixture = ACLFixture(client: client, clock: clock, sessions: [:])
                #expect(try await fixture.send(.privateKey, .get, "/aclrole/admin").object?["users"] == [])
            }
        }
    }

    /// Neither the refresh token nor the temporary password (with a new password) signs in.
    static func expectRefused(_ client: StackMobClient, refreshToken: String, login: String, temporaryPassword: String) async throws {
        let refreshed = try await client.postForm(
            "/user/refreshToken", [("refresh_token", refreshToken), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")])
        #expect(refreshed.status == .unauthorized, "\(refreshed.text)")
        let viaTemporary = try await client.postForm(
            "/user/accessToken",
            [("username", login), ("password", temporaryPassword), ("new_password", "taken"), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")])
        #expect(viaTemporary.status == .unauthorized, "\(viaTemporary.text)")
    }

    private static func expectStrangerInheritsNothing(_ client: StackMobClient, clock: ManualClock, noteID: String, registers: Bool) async throws {
        if registers {
            #expect(try await client.post("/user", ["username": "chief", "password": "stranger"]).status == .created)
        }
        let stranger = ACLFixture(client: client, clock: clock, sessions: ["chief": try await client.login([("username", "chief"), ("password", "stranger")])])
        let read = try await stranger.send(.user("chief"), .get, "/note/\(noteID)")
        #expect(read.status == .notFound, "\(read.text)")
        let list = try await stranger.send(.user("chief"), .get, "/note")
        #expect(list.status == .ok && list.array == [], "\(list.text)")
        let secret = try await stranger.send(.user("chief"), .get, "/secret/s1")
        #expect(secret.status == .unauthorized, "\(secret.text)")
        let project = try await stranger.send(.user("chief"), .get, "/project/p1")
        #expect(project.status == .notFound, "\(project.text)")
    }
}

