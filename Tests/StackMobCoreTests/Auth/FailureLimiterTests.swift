import Testing

@testable import StackMobCore

/// What the HTTP tests cannot line up: attempts in flight at once (docs/security.md, "Failure
/// limits"). Time is the `now` passed in.
@Suite("FailureLimiter: attempts in flight")
struct FailureLimiterTests {
    static let keys: [FailureLimiter.Key] = [.address("203.0.113.66"), .accountFromAddress("dev/user/bob", address: "203.0.113.66"), .account("dev/user/bob")]

    @Test("concurrent guesses for one account from one address get no more than its allowance, then one at a time")
    func burst() async throws {
        let limiter = FailureLimiter(policy: FailureLimits(failuresPerAddress: 50, failuresPerAccount: 2, windowSeconds: 300))
        let first = try await limiter.begin(Self.keys, now: 0)
        let second = try await limiter.begin(Self.keys, now: 0)
        await #expect(throws: FailureLimiter.Refusal(retryAfterSeconds: 1)) { try await limiter.begin(Self.keys, now: 0) }
        await limiter.end(first, .failed, now: 0)
        await limiter.end(second, .failed, now: 0)
        await #expect(throws: FailureLimiter.Refusal(retryAfterSeconds: 1)) { try await limiter.begin(Self.keys, now: 999) }
        let third = try await limiter.begin(Self.keys, now: 1000)
        await #expect(throws: FailureLimiter.Refusal(retryAfterSeconds: 1)) { try await limiter.begin(Self.keys, now: 1000) }
        await limiter.end(third, .other, now: 1000)
        // Neither a success nor a failure: nothing counted, the next attempt may run.
        let fourth = try await limiter.begin(Self.keys, now: 1000)
        await limiter.end(fourth, .failed, now: 1000)
        await #expect(throws: FailureLimiter.Refusal(retryAfterSeconds: 2)) { try await limiter.begin(Self.keys, now: 1000) }
    }

    @Test("an address's concurrent requests are not bounded before its failures: most are no guesses")
    func addressConcurrency() async throws {
        let limiter = FailureLimiter(policy: FailureLimits(failuresPerAddress: 2, failuresPerAccount: 0, windowSeconds: 300))
        var attempts: [FailureLimiter.Attempt] = []
        for _ in 0..<10 { attempts.append(try await limiter.begin([.address("203.0.113.66")], now: 0)) }
        for attempt in attempts { await limiter.end(attempt, .succeeded, now: 0) }
        _ = try await limiter.begin([.address("203.0.113.66")], now: 0)
    }
}
