/// Failed attempts at guessing a secret (a password, a refresh token, the private key behind an
/// OAuth 1.0 signature). Repeated failures slow the guesser, never the owner who presents the
/// right secret from their own address (docs/security.md, "Failure limits"):
///
/// * `.address(a)` counts every failure from one client address. Past its allowance the address
///   waits before each further attempt: 1 s, then 2, 4, 8 … up to one window (`429` with
///   `Retry-After`). This slows spraying (one guess at many accounts).
/// * `.accountFromAddress(account, a)` counts failures for one account from one address, with
///   the same delays past its allowance. Only that address waits, so a guesser cannot lock the
///   owner out from elsewhere.
/// * `.account(account)` counts failures for the account from every address. It never refuses
///   (with `AccountWide.narrowsEachAddress`): past its allowance the account is under attack, and
///   each address then gets a single failure for it before its own delays begin. A guesser with
///   many addresses gets one quick guess per address, then delays; the owner's right password
///   from an address without failures is still let through. A server-side pause was not chosen:
///   concurrent requests make it free to the guesser and it holds the server's connections.
///
/// A key is forgotten once a window has passed since its last failure and its delay. Attempts
/// in flight count: for an account from one address against its allowance, and past any
/// allowance only one attempt of a key runs at a time, so a burst of concurrent guesses at an
/// account gets no more than a sequence. An address's concurrent requests are not bounded
/// before its allowance is used up (most are no guesses); a burst's failures all count when it
/// ends, pushing that address's delay towards the window at once.
///
/// In-process state, hence an actor: with several instances each counts its own attempts.
public actor FailureLimiter {
    public enum Key: Hashable, Sendable {
        /// The client's address (behind trusted proxies, the forwarded one).
        case address(String)
        /// An account (`<environment>/<user schema>/<login>`) from one client address.
        case accountFromAddress(String, address: String)
        /// An account from every address.
        case account(String)
    }

    /// What the account-wide key does past its allowance.
    public enum AccountWide: Sendable {
        /// Secrets: it never refuses; each address then gets one failure before its delays.
        case narrowsEachAddress
        /// Requests that cost something whoever sends them (a forgot-password mail): it delays
        /// the account's requests from every address, as the other keys do.
        case refuses
    }

    /// A request refused for too many failures; `retryAfterSeconds` until it may try again.
    public struct Refusal: Error, Sendable, Equatable {
        public let retryAfterSeconds: Int
    }

    /// An attempt let through by `begin`, to hand back to `end`.
    public struct Attempt: Sendable {
        fileprivate let keys: [Key]
    }

    public enum Outcome: Sendable {
        /// The right secret: the account's failures from that address are forgotten.
        case succeeded
        /// A wrong secret: counted against every key.
        case failed
        /// Neither (a malformed request, an expired token): nothing counted, nothing forgotten.
        case other
    }

    private struct Entry {
        var failures = 0
        var inFlight = 0
        /// Milliseconds: the last failure, and the end of the delay it started.
        var lastFailure: Int64 = 0
        var delayedUntil: Int64 = 0
        /// The count of failures at which delays began (the allowance then: an account from an
        /// address may get a smaller one once the account is under attack).
        var delaysFrom: Int?
    }

    /// The first delay past an allowance; each further failure doubles it, up to one window.
    static let firstDelayMilliseconds: Int64 = 1000

    private let policy: FailureLimits
    private let accountWide: AccountWide
    private var entries: [Key: Entry] = [:]
    /// Bounds memory under a flood of distinct keys (spoofed logins, many addresses).
    private let capacity: Int

    public init(policy: FailureLimits, accountWide: AccountWide = .narrowsEachAddress, capacity: Int = 100_000) {
        self.policy = policy
        self.accountWide = accountWide
        self.capacity = capacity
    }

    /// Lets an attempt run, or throws while one of `keys` is delayed.
    public func begin(_ keys: [Key], now: Int64) throws(Refusal) -> Attempt {
        let keys = keys.filter { allowance(for: $0, now: now) != nil }
        var wait: Int64 = 0
        for key in keys where refuses(key) {
            guard let entry = live(key, now: now), let allowance = allowance(for: key, now: now) else { continue }
            if now < entry.delayedUntil {
                wait = max(wait, entry.delayedUntil - now)
            } else if entry.inFlight > 0, entry.failures >= allowance || (key.isPair && entry.failures + entry.inFlight >= allowance) {
                // One attempt at a time once delays began (for an account from one address, as
                // soon as those in flight could use up the allowance); an address's concurrent
                // requests are not bounded before: most of them are not guesses.
                wait = max(wait, Self.firstDelayMilliseconds)
            }
        }
        if wait > 0 { throw Refusal(retryAfterSeconds: Int((wait + 999) / 1000)) }
        for key in keys {
            if let entry = entries[key], isStale(entry, now: now) { entries[key] = nil }
            if entries[key] == nil, entries.count >= capacity { evict(now: now) }
            entries[key, default: Entry()].inFlight += 1
        }
        return Attempt(keys: keys)
    }

    /// Ends an attempt begun by `begin`. A failure counts against its keys; a success forgets
    /// the account's failures from that address (the owner who mistyped), nothing else.
    public func end(_ attempt: Attempt, _ outcome: Outcome, now: Int64) {
        for key in attempt.keys {
            guard var entry = entries[key] else { continue }
            entry.inFlight = max(0, entry.inFlight - 1)
            if outcome == .failed, let allowance = allowance(for: key, now: now) {
                entry.failures += 1
                entry.lastFailure = now
                if refuses(key), let from = entry.delaysFrom ?? (entry.failures >= allowance ? entry.failures : nil) {
                    entry.delaysFrom = from
                    entry.delayedUntil = now + min(Self.firstDelayMilliseconds << min(entry.failures - from, 30), windowMilliseconds)
                }
            } else if outcome == .succeeded, key.isPair {
                entry = Entry(inFlight: entry.inFlight)
            }
            entries[key] = entry.failures == 0 && entry.inFlight == 0 ? nil : entry
        }
    }

    /// Counts an attempt that is refused or allowed on its count alone (every one costs).
    public func count(_ keys: [Key], now: Int64) throws(Refusal) {
        let attempt = try begin(keys, now: now)
        end(attempt, .failed, now: now)
    }

    /// nil: this kind of key is not limited (its allowance is configured as 0), or, for the
    /// account-wide key of secrets, never refuses.
    private func allowance(for key: Key, now: Int64) -> Int? {
        let allowance: Int
        switch key {
        case .address:
            allowance = policy.failuresPerAddress
        case .accountFromAddress(let account, _):
            allowance = isUnderAttack(account, now: now) ? min(1, policy.failuresPerAccount) : policy.failuresPerAccount
        case .account:
            allowance = policy.failuresPerAccount
        }
        return allowance > 0 ? allowance : nil
    }

    /// The account-wide key of secrets only counts.
    private func refuses(_ key: Key) -> Bool {
        if case .account = key { return accountWide == .refuses }
        return true
    }

    /// Whether the account has used up its allowance across addresses (secrets only).
    private func isUnderAttack(_ account: String, now: Int64) -> Bool {
        guard accountWide == .narrowsEachAddress, policy.failuresPerAccount > 0 else { return false }
        return (live(.account(account), now: now)?.failures ?? 0) >= policy.failuresPerAccount
    }


    private var windowMilliseconds: Int64 { Int64(policy.windowSeconds) * 1000 }

    /// The key's entry unless it has aged out.
    private func live(_ key: Key, now: Int64) -> Entry? {
        guard let entry = entries[key] else { return nil }
        return isStale(entry, now: now) ? nil : entry
    }

    private func isStale(_ entry: Entry, now: Int64) -> Bool {
        entry.inFlight == 0 && now >= max(entry.lastFailure, entry.delayedUntil) + windowMilliseconds
    }

    private func evict(now: Int64) {
        entries = entries.filter { !isStale($0.value, now: now) }
        guard entries.count >= capacity else { return }
        let newest = entries.sorted { max($0.value.lastFailure, $0.value.delayedUntil) > max($1.value.lastFailure, $1.value.delayedUntil) }
            .prefix(capacity / 2)
        entries = Dictionary(uniqueKeysWithValues: newest.map { ($0.key, $0.value) })
    }
}

extension FailureLimiter.Key {
    fileprivate var isPair: Bool {
        if case .accountFromAddress = self { return true }
        return false
    }
}
