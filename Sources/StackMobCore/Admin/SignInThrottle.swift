/// Limits failed operator sign-ins (issue 15): after `maxFailures` failures for one name within
/// `window`, further attempts for that name are refused until the oldest failure ages out, so a
/// password cannot be guessed at network speed. In memory: a restart forgets, which only helps
/// someone who can restart the server anyway.
public actor SignInThrottle {
    public let maxFailures: Int
    public let windowMilliseconds: Int64
    private let clock: any ServerClock
    private var failures: [String: [Int64]] = [:]

    public init(maxFailures: Int = 5, windowMilliseconds: Int64 = 15 * 60 * 1000, clock: any ServerClock = SystemClock()) {
        self.maxFailures = maxFailures
        self.windowMilliseconds = windowMilliseconds
        self.clock = clock
    }

    /// Seconds to wait before trying again, or nil when an attempt is allowed.
    public func retryAfter(name: String) -> Int? {
        let now = clock.nowMilliseconds()
        let recent = (failures[name] ?? []).filter { $0 > now - windowMilliseconds }
        failures[name] = recent
        guard recent.count >= maxFailures, let oldest = recent.first else { return nil }
        return Int((oldest + windowMilliseconds - now + 999) / 1000)
    }

    public func recordFailure(name: String) {
        failures[name, default: []].append(clock.nowMilliseconds())
        // Bounded memory: many distinct names (a spray) keep only the newest ones.
        if failures.count > 10_000, let stale = failures.min(by: { ($0.value.last ?? 0) < ($1.value.last ?? 0) })?.key {
            failures[stale] = nil
        }
    }

    public func recordSuccess(name: String) {
        failures[name] = nil
    }
}
