import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// Guessing secrets costs time (issue 20): failed logins, refreshes, resets, cookie logins and
/// OAuth 1.0 signatures are limited per client address and per account, with 429 and
/// `Retry-After`; the limit ends with its window.
@Suite("Failed attempts at secrets are rate limited")
struct FailureLimitTests {
    static func login(_ client: StackMobClient, _ username: String, _ password: String) async throws -> APIResponse {
        try await client.postForm(
            "/user/accessToken",
            [("username", username), ("password", password), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")])
    }

    @Test("ten wrong passwords lock the account, not the others, until the window ends")
    func perAccount() async throws {
        let clock = ManualClock(1_800_000_000_000)
        try await TestServer.run(clock: clock) { client in
            for name in ["ann", "bob"] {
                #expect(try await client.post("/user", ["username": .string(name), "password": "right"]).status == .created)
            }
            for _ in 0..<10 {
                #expect(try await Self.login(client, "ann", "wrong").status == .unauthorized)
            }
            // Even the right password is refused now: the attacker cannot tell.
            let refused = try await Self.login(client, "ann", "right")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.header("Retry-After") == "300")
            #expect(refused.error == "Too many failed attempts: try again in 300 seconds")
            #expect(try await Self.login(client, "bob", "right").status == .ok)
            clock.advance(by: 200_000)
            #expect(try await Self.login(client, "ann", "right").header("Retry-After") == "100")
            clock.advance(by: 100_000)
            #expect(try await Self.login(client, "ann", "right").status == .ok)
        }
    }

    @Test("failures from one address across accounts, and bad OAuth 1.0 signatures, are limited per address")
    func perAddress() async throws {
        let clock = ManualClock(1_800_000_000_000)
        let fivePerAddress: (inout ServerConfiguration) -> Void = { configuration in
            configuration.failureLimits.failuresPerAddress = 5
            configuration.failureLimits.failuresPerAccount = 0
        }
        try await TestServer.run(configure: fivePerAddress, clock: clock) { client in
            #expect(try await client.post("/user", ["username": "ann", "password": "right"]).status == .created)
            for index in 0..<3 {
                #expect(try await Self.login(client, "user\(index)", "guess").status == .unauthorized)
            }
            let target = "/thing"
            for _ in 0..<2 {
                let forged = OAuth1Signer.authorization(
                    method: "GET", target: target, consumerKey: TestServer.developmentPublicKey, secret: "a-guessed-private-key",
                    shape: .java, endpoint: .init(port: client.port), timestamp: clock.nowMilliseconds() / 1000)
                let refused = try await client.withoutKey.get(target, headers: ["Authorization": forged])
                #expect(refused.status == .unauthorized, "\(refused.text)")
            }
            #expect(try await Self.login(client, "ann", "right").status == .tooManyRequests)
            let forged = OAuth1Signer.authorization(
                method: "GET", target: target, consumerKey: TestServer.developmentPublicKey, secret: "another-guess",
                shape: .java, endpoint: .init(port: client.port), timestamp: clock.nowMilliseconds() / 1000)
            #expect(try await client.withoutKey.get(target, headers: ["Authorization": forged]).status == .tooManyRequests)
            // Requests that guess nothing are not refused.
            #expect(try await client.post(target, ["name": "a"]).status == .created)
            clock.advance(by: 300_000)
            #expect(try await Self.login(client, "ann", "right").status == .ok)
        }
    }

    @Test("every forgot-password request counts, since each sends mail")
    func forgotPassword() async throws {
        try await TestServer.run(configure: { $0.failureLimits.failuresPerAccount = 2 }) { client in
            #expect(try await client.post("/user", ["username": "ann", "password": "pw", "email": "ann@example.com"]).status == .created)
            #expect(try await client.post("/user/forgotPassword", ["username": "ann"]).status == .ok)
            #expect(try await client.post("/user/forgotPassword", ["username": "ann"]).status == .ok)
            let refused = try await client.post("/user/forgotPassword", ["username": "ann"])
            #expect(refused.status == .tooManyRequests)
            #expect(refused.header("Retry-After") != nil)
        }
    }

    @Test("0 turns a limit off")
    func disabled() async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.failureLimits.failuresPerAddress = 0
            configuration.failureLimits.failuresPerAccount = 0
            try await TestServer.run(configuration: configuration) { client in
                #expect(try await client.post("/user", ["username": "ann", "password": "right"]).status == .created)
                var statuses: [Int] = []
                for _ in 0..<60 {
                    statuses.append(Int(try await Self.login(client, "ann", "wrong").status.code))
                }
                #expect(statuses == Array(repeating: 401, count: 60))
                #expect(try await Self.login(client, "ann", "right").status == .ok)
            }
        }
    }
}
