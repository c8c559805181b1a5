/// Limits failed operator sign-ins as `FailureLimiter` limits secrets (docs/security.md,
/// "Failure limits"): per operator name from one client address (5 failures) and per address
/// (20), each further attempt then waiting 1 s, doubling, up to 15 minutes. A name's failures
/// from every address never refuse it: a guesser cannot lock the operator out, and once a name
/// has 5 failures each new address gets one before its delays begin. In memory: a restart
/// forgets, which only helps someone who can restart the server anyway.
public struct SignInThrottle: Sendable {
    public static let policy = FailureLimits(failuresPerAddress: 20, failuresPerAccount: 5, windowSeconds: 15 * 60)
    private let limiter: FailureLimiter
    private let clock: any ServerClock

    public init(clock: any ServerClock = SystemClock()) {
        limiter = FailureLimiter(policy: Self.policy, capacity: 10_000)
        self.clock = clock
    }

    /// Runs a sign-in: refused while the address or the name from it waits; `body` answers
    /// whether the password was right.
    public func attempt<Value>(name: String, address: String?, _ body: () async throws -> Value?) async throws -> Value? {
        let address = address ?? "-"
        let attempt: FailureLimiter.Attempt
        do {
            attempt = try await limiter.begin(
                [.address(address), .accountFromAddress(name, address: address), .account(name)], now: clock.nowMilliseconds())
        } catch {
            throw AdminError.tooManyAttempts(retryAfterSeconds: error.retryAfterSeconds)
        }
        do {
            let value = try await body()
            await limiter.end(attempt, value == nil ? .failed : .succeeded, now: clock.nowMilliseconds())
            return value
        } catch {
            await limiter.end(attempt, .other, now: clock.nowMilliseconds())
            throw error
        }
    }
}
