import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// A user object is its own owner, as StackMob made it and the iOS SDK's specs read it:
/// `sm_owner` is `<userSchema>/<login>` from creation, however the user was created.
@Suite("A user object owns itself")
struct UserOwnershipTests {
    @Test("sign-up, bulk and sign-up by another user give sm_owner user/<login>, seen by login, loggedInUser and reads; owner-only permissions admit the user alone; a start gives it back to users without one")
    func ownsItself() async throws {
        let clock = ManualClock()
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.development.oauth1TimestampWindowSeconds = 0
            configuration.development.access = AccessPolicy(schemas: ["user": SchemaPermissions(read: .owner, update: .owner, delete: .owner)])
            try await TestServer.run(configuration: configuration, clock: clock) { client in
                let created = try await client.post("/user", ["username": "bob", "password": "bob-pw"])
                #expect(created.status == .created && created.object?["sm_owner"] == "user/bob", "\(created.text)")
                let token = try await client.postForm(
                    "/user/accessToken", [("username", "bob"), ("password", "bob-pw"), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")])
                #expect(token.object?["stackmob"]?.objectValue?["user"]?.objectValue?["sm_owner"] == "user/bob", "\(token.text)")
                let bob = try #require(MACSession(token))
                let ts = clock.nowMilliseconds() / 1000
                #expect(try await client.signed(.get, "/user/loggedInUser", session: bob, ts: ts).object?["sm_owner"] == "user/bob")

                #expect(try await client.post("/user", [["username": "c1", "password": "x"], ["username": "c2", "password": "x"]]).status == .ok)
                #expect(try await client.post("/user", ["username": "eve", "password": "eve-pw"]).status == .created)
                let eve = try await client.login([("username", "eve"), ("password", "eve-pw")])
                let dan = try await client.signed(.post, "/user", session: eve, ts: ts, json: ["username": "dan", "password": "dan-pw"])
                #expect(dan.object?["sm_owner"] == "user/dan", "created by eve, owned by dan: \(dan.text)")
                for login in ["c1", "c2", "dan"] {
                    #expect(try await client.oauth1(.get, "/user/\(login)", shape: .java).object?["sm_owner"] == .string("user/\(login)"))
                }

                // Owner-level permissions on the user schema: bob reads and updates himself; eve neither.
                #expect(try await client.signed(.get, "/user/bob", session: bob, ts: ts).status == .ok)
                #expect(try await client.signed(.put, "/user/bob", session: bob, ts: ts, json: ["email": "bob@example.com"]).status == .ok)
                #expect(try await client.signed(.get, "/user/bob", session: eve, ts: ts).status == .notFound)
                #expect(try await client.signed(.put, "/user/bob", session: eve, ts: ts, json: ["email": "eve@example.com"]).status == .notFound)
                let list = try await client.signed(.get, "/user", session: eve, ts: ts)
                #expect(list.array?.compactMap { $0.objectValue?["username"]?.stringValue } == ["eve"], "\(list.text)")

                // A user without an owner (as every user was before): the next start gives it back.
                #expect(try await client.oauth1(.put, "/user/c1", shape: .java, json: ["sm_owner": nil]).status == .ok)
                #expect(try await client.oauth1(.get, "/user/c1", shape: .java).object?["sm_owner"] == nil)
            }
            try await TestServer.run(configuration: configuration, clock: clock) { client in
                let adopted = try await client.oauth1(.get, "/user/c1", shape: .java)
                #expect(adopted.object?["sm_owner"] == "user/c1", "\(adopted.text)")
            }
        }
    }
}
