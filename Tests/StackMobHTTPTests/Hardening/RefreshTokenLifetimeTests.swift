import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// A refresh token works for `refresh_token_lifetime_days` after it was issued, then answers
/// `invalid_grant` like a used one (sessions do not live forever: docs/operations.md, "Retention").
@Suite("Refresh token lifetime")
struct RefreshTokenLifetimeTests {
    static let day: Int64 = 86_400_000

    static func refresh(_ client: StackMobClient, _ session: MACSession) async throws -> APIResponse {
        try await client.postForm(
            "/user/refreshToken", [("refresh_token", session.refreshToken), ("grant_type", "refresh_token"), ("token_type", "mac")])
    }

    @Test("refused with invalid_grant once older than the lifetime; each refresh starts a new lifetime")
    func lifetime() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: { $0.development.refreshTokenLifetimeDays = 1 }, clock: clock) { client in
            #expect(try await client.post("/user", ["username": "alice", "password": "pw"]).status == .created)
            let first = try await client.login([("username", "alice"), ("password", "pw")])
            // Within the lifetime: a new access token and a new refresh token.
            clock.advance(by: Self.day - 1)
            let renewed = try await Self.refresh(client, first)
            #expect(renewed.status == .ok, "\(renewed.text)")
            let second = try #require(MACSession(renewed))
            // The new refresh token's lifetime starts at this refresh.
            clock.advance(by: Self.day - 1)
            let again = try await Self.refresh(client, second)
            #expect(again.status == .ok, "\(again.text)")
            let third = try #require(MACSession(again))
            // One day after it was issued, it is refused.
            clock.advance(by: Self.day)
            let refused = try await Self.refresh(client, third)
            #expect(refused.status == .unauthorized)
            #expect(refused.object?["error"]?.stringValue == "invalid_grant")
            // Logging in again works.
            _ = try await client.login([("username", "alice"), ("password", "pw")])
        }
    }
}
