/// Failed attempts at guessing a secret (a password, a refresh token, the private key behind an
/// OAuth 1.0 signature), counted per client address and per account in fixed windows. A key
/// past its allowance is refused until its window ends, so guessing costs an attacker time
/// without locking an account for longer than one window.
///
/// In-process state, hence an actor: with several instances each counts its own attempts.
public actor FailureLimiter {
    public enum Key: Hashable, Sendable {
        /// The client's IP address (as the server's socket sees it).
        case address(String)
        /// `<environment>/<user schema>/<login>`.
        case account(String)
    }

    /// A request refused for too many failures; `retryAfterSeconds` until the window ends.
    public struct Refusal: Error, Sendable, Equatable {
        public let retryAfterSeconds: Int
    }

    private struct Window {
        var start: Int64
        var failures: Int
    }

    private let policy: FailureLimits
    private var windows: [Key: Window] = [:]
    /// Bounds memory under a flood of distinct keys (spoofed logins, many addresses).
    private let capacity: Int

    public init(policy: FailureLimits, capacity: Int = 100_000) {
        self.policy = policy
        self.capacity = capacity
    }

    /// Throws when any of `keys` has used up its allowance in its current window.
    public func check(_ keys: [Key], now: Int64) throws(Refusal) {
        for key in keys {
            guard let allowance = allowance(for: key), let window = windows[key], window.failures >= allowance else { continue }
            let end = window.start + windowMilliseconds
            if now < end {
                throw Refusal(retryAfterSeconds: Int((end - now + 999) / 1000))
            }
        }
    }

    public func recordFailure(_ keys: [Key], now: Int64) {
        for key in keys where allowance(for: key) != nil {
            if var window = windows[key], now < window.start + windowMilliseconds {
                window.failures += 1
                windows[key] = window
            } else {
                if windows.count >= capacity { evict(now: now) }
                windows[key] = Window(start: now, failures: 1)
            }
        }
    }

    /// nil: this kind of key is not limited (its allowance is configured as 0).
    private func allowance(for key: Key) -> Int? {
        let allowance: Int
        switch key {
        case .address: allowance = policy.failuresPerAddress
        case .account: allowance = policy.failuresPerAccount
        }
        return allowance > 0 ? allowance : nil
    }

    private var windowMilliseconds: Int64 { Int64(policy.windowSeconds) * 1000 }

    private func evict(now: Int64) {
        windows = windows.filter { now < $0.value.start + windowMilliseconds }
        guard windows.count >= capacity else { return }
        let newest = windows.sorted { $0.value.start > $1.value.start }.prefix(capacity / 2)
        windows = Dictionary(uniqueKeysWithValues: newest.map { ($0.key, $0.value) })
    }
}
