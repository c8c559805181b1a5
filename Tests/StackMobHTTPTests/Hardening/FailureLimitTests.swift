import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// Guessing secrets costs time (docs/security.md, "Failure limits"): failed logins, refreshes,
/// resets, cookie logins and OAuth 1.0 signatures slow their address, and an account from that
/// address, with 429 and a growing `Retry-After`; never the owner's right password from elsewhere.
@Suite("Failed attempts at secrets are rate limited")
struct FailureLimitTests {
    static func login(_ client: StackMobClient, _ username: String, _ password: String) async throws -> APIResponse {
        try await client.postForm(
            "/user/accessToken",
            [("username", username), ("password", password), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")])
    }

    @Test("ten wrong passwords slow that account from that address, not the others; the delay ends")
    func perAccount() async throws {
        let clock = ManualClock(1_800_000_000_000)
        try await TestServer.run(clock: clock) { client in
            for name in ["ann", "bob"] {
                #expect(try await client.post("/user", ["username": .string(name), "password": "right"]).status == .created)
            }
            for _ in 0..<10 {
                #expect(try await Self.login(client, "ann", "wrong").status == .unauthorized)
            }
            // From this address even the right password waits now: the attacker cannot tell.
            let refused = try await Self.login(client, "ann", "right")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.header("Retry-After") == "1")
            #expect(refused.error == "Too many failed attempts: try again in 1 seconds")
            #expect(try await Self.login(client, "bob", "right").status == .ok)
            clock.advance(by: 1000)
            #expect(try await Self.login(client, "ann", "right").status == .ok)
            // The right password forgot this address's failures for ann, but ann is still under
            // attack (ten failures in all): one failure, from any address, starts a delay.
            #expect(try await Self.login(client, "ann", "wrong").status == .unauthorized)
            #expect(try await Self.login(client, "ann", "right").header("Retry-After") == "1")
            clock.advance(by: 1000)
            #expect(try await Self.login(client, "ann", "right").status == .ok)
        }
    }

    @Test("failures from one address across accounts, and bad OAuth 1.0 signatures, are limited per address")
    func perAddress() async throws {
        let clock = ManualClock(1_800_000_000_000)
        let fivePerAddress: (inout StackMobConfiguration) -> Void = { configuration in
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

    @Test("every forgot-password request counts, since each sends mail: three per account")
    func forgotPassword() async throws {
        // A fixed clock: the waits start at a second, which a loaded machine can pass between
        // two requests.
        try await TestServer.run(clock: ManualClock(1_800_000_000_000)) { client in
            #expect(try await client.post("/user", ["username": "ann", "password": "pw", "email": "ann@example.com"]).status == .created)
            for _ in 0..<3 {
                #expect(try await client.post("/user/forgotPassword", ["username": "ann"]).status == .ok)
            }
            let refused = try await client.post("/user/forgotPassword", ["username": "ann"])
            #expect(refused.status == .tooManyRequests)
            #expect(refused.header("Retry-After") != nil)
            #expect(try await Self.login(client, "ann", "pw").status == .ok)
        }
    }

    static func login(_ client: StackMobClient, _ username: String, _ password: String, from address: String) async throws -> APIResponse {
        try await client.postForm(
            "/user/accessToken",
            [("username", username), ("password", password), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")],
            headers: ["X-Forwarded-For": address])
    }

    @Test("wrong passwords for bob from one address leave his right password working from his own; the guesser waits longer each time")
    func guesserSlowedOwnerNot() async throws {
        let clock = ManualClock(1_800_000_000_000)
        try await TestServer.run(clock: clock) { client in
            #expect(try await client.post("/user", ["username": "bob", "password": "right"]).status == .created)
            let attacker = "203.0.113.66"
            for _ in 0..<10 {
                #expect(try await Self.login(client, "bob", "wrong", from: attacker).status == .unauthorized)
            }
            var delays: [String] = []
            for _ in 0..<4 {
                let slowed = try await Self.login(client, "bob", "guess", from: attacker)
                #expect(slowed.status == .tooManyRequests)
                let seconds = try #require(slowed.header("Retry-After").flatMap(Int64.init))
                delays.append(String(seconds))
                clock.advance(by: seconds * 1000)
                #expect(try await Self.login(client, "bob", "guess", from: attacker).status == .unauthorized)
            }
            #expect(delays == ["1", "2", "4", "8"])
            // From the guesser's address even the right password waits: the server cannot tell who sends it.
            #expect(try await Self.login(client, "bob", "right", from: attacker).status == .tooManyRequests)
            // A guesser with many addresses: while bob is under attack each new address gets one
            // failure before its own delays begin.
            #expect(try await Self.login(client, "bob", "guess", from: "198.51.100.5").status == .unauthorized)
            #expect(try await Self.login(client, "bob", "guess", from: "198.51.100.5").header("Retry-After") == "1")
            #expect(try await Self.login(client, "bob", "right", from: "203.0.113.77").status == .ok)
        }
    }

    @Test("fifty forgotPassword requests from one address refuse no login or refresh; forgotPassword is limited on its own")
    func forgotPasswordApart() async throws {
        try await TestServer.run(clock: ManualClock(1_800_000_000_000)) { client in
            #expect(try await client.post("/user", ["username": "ann", "password": "right"]).status == .created)
            let session = try await Self.login(client, "ann", "right", from: "203.0.113.66")
            let refreshToken = try #require(session.object?["refresh_token"]?.stringValue)
            var statuses: [Int: Int] = [:]
            for index in 0..<50 {
                let response = try await client.post("/user/forgotPassword", ["username": .string("nobody\(index)")], headers: ["X-Forwarded-For": "203.0.113.66"])
                statuses[Int(response.status.code), default: 0] += 1
            }
            #expect(statuses[429, default: 0] > 0, "\(statuses)")
            for address in ["203.0.113.66", "203.0.113.77"] {
                #expect(try await Self.login(client, "ann", "right", from: address).status == .ok)
            }
            let refreshed = try await client.postForm(
                "/user/refreshToken", [("refresh_token", refreshToken), ("grant_type", "refresh_token"), ("token_type", "mac")],
                headers: ["X-Forwarded-For": "203.0.113.66"])
            #expect(refreshed.status == .ok, "\(refreshed.text)")
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
