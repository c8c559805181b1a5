import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// A new password logs out whoever held the old one (docs/operations.md, "Retention"): every other
/// session of the user, MAC and cookie alike, ends; the session that changed the password stays.
@Suite("A password change revokes the user's other sessions")
struct SessionRevocationTests {
    static let change: JSONValue = ["old": ["password": "old-pw"], "new": ["password": "new-pw"]]

    @Test("resetPassword keeps its own session and ends the others")
    func resetPassword() async throws {
        let clock = ManualClock()
        // The OAuth 1.0 helper signs with the real time; this server runs on a manual clock.
        try await TestServer.run(configure: { $0.development.oauth1TimestampWindowSeconds = 0 }, clock: clock) { client in
            #expect(try await client.post("/user", ["username": "alice", "password": "old-pw"]).status == .created)
            #expect(try await client.post("/user", ["username": "bob", "password": "bob-pw"]).status == .created)
            let phone = try await client.login([("username", "alice"), ("password", "old-pw")])
            let laptop = try await client.login([("username", "alice"), ("password", "old-pw")])
            let bob = try await client.login([("username", "bob"), ("password", "bob-pw")])
            let cookieLogin = try await client.oauth1(.get, "/user/login?username=alice&password=old-pw", shape: .java)
            let (name, value) = try CookieSessionTests.cookie(cookieLogin)
            let ts = clock.nowMilliseconds() / 1000
            func loggedIn(_ session: MACSession) async throws -> Int {
                Int(try await client.signed(.get, "/user/loggedInUser", session: session, ts: ts).status.code)
            }
            #expect(try await loggedIn(laptop) == 200)

            #expect(try await client.signed(.post, "/user/resetPassword", session: phone, ts: ts, json: Self.change).status == .ok)
            #expect(try await loggedIn(phone) == 200)
            #expect(try await loggedIn(laptop) == 401)
            #expect(try await loggedIn(bob) == 200)
            let cookie = try await client.oauth1(.get, "/user/loggedInUser", shape: .java, headers: ["Cookie": "\(name)=\(value)"])
            #expect(cookie.status == .unauthorized)
            // The laptop's refresh token is gone with its session.
            let refresh = try await client.postForm(
                "/user/refreshToken", [("refresh_token", laptop.refreshToken), ("grant_type", "refresh_token"), ("token_type", "mac")])
            #expect(refresh.status == .unauthorized)
        }
    }

    @Test("a temporary-password login that sets a new password ends every earlier session")
    func temporaryPassword() async throws {
        try await TestServer.withDataDirectory { directory in
            let clock = ManualClock()
            try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory), clock: clock) { client in
                #expect(try await client.post("/user", ["username": "alice", "password": "old-pw", "email": "alice@example.com"]).status == .created)
                let stolen = try await client.login([("username", "alice"), ("password", "old-pw")])
                #expect(try await client.post("/user/forgotPassword", ["username": "alice"]).status == .ok)
                let temporary = try await PasswordFlowTests.temporaryPassword(in: directory).password
                let fresh = try await client.login([("username", "alice"), ("password", temporary), ("new_password", "new-pw")])
                let ts = clock.nowMilliseconds() / 1000
                #expect(try await client.signed(.get, "/user/loggedInUser", session: stolen, ts: ts).status == .unauthorized)
                #expect(try await client.signed(.get, "/user/loggedInUser", session: fresh, ts: ts).status == .ok)
            }
        }
    }
}
