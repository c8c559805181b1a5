import Foundation

/// The push token registry of one environment (PROTOCOL §11.1): tokens with their user links, the
/// expired list, and the delivery outbox, kept by the environment's `PushStore`.
public struct TokenRegistry: Sendable {
    let store: any PushStore
    let clock: any ServerClock
    /// How long a claimed delivery belongs to the process that claimed it before another may
    /// retry it: longer than one delivery attempt can take (the sender's timeouts are ~30 s).
    static let claimLeaseMilliseconds: Int64 = 120_000

    public init(store: any PushStore, clock: any ServerClock) {
        self.store = store
        self.clock = clock
    }

    /// Registers a token, linked to `user` (or to nobody). An existing token is re-linked only
    /// with `overwrite`; otherwise it is a conflict (§11.2).
    public func register(_ token: PushToken, user: String?, overwrite: Bool) async throws {
        try await store.register(token, user: user, overwrite: overwrite, at: clock.nowMilliseconds())
    }

    /// Removes a token; false when it was not registered.
    @discardableResult
    public func remove(_ token: PushToken) async throws -> Bool {
        try await store.remove(token)
    }

    /// The tokens linked to any of `users`, oldest registration first.
    public func tokens(forUsers users: [String]) async throws -> [RegisteredToken] {
        guard !users.isEmpty else { return [] }
        return try await store.tokens(forUsers: users)
    }

    /// The expired list (§11.2 `get_expired_tokens_universal`, §11.3 `expired_tokens`); with
    /// `clear`, emptied in the same transaction that read it.
    public func expiredTokens(clear: Bool) async throws -> [RegisteredToken] {
        try await store.expiredTokens(clear: clear)
    }

    /// Validates and accepts a notification: one durable outbox row per delivery, written in the
    /// same transaction. With `fake` (Java SDK fake mode) the recipients are resolved and checked
    /// but nothing is written or delivered.
    public func send(_ payload: PushPayload, to recipients: PushRecipients, fake: Bool) async throws -> PushSendResult {
        try await store.enqueue(
            payload, to: recipients, fake: fake, notificationID: UUID().uuidString.lowercased(), at: clock.nowMilliseconds())
    }

    /// Due deliveries, claimed for this process (see `PushStore.claimDueDeliveries`).
    public func dueDeliveries(limit: Int) async throws -> [PushDelivery] {
        let now = clock.nowMilliseconds()
        return try await store.claimDueDeliveries(limit: limit, at: now, leaseUntil: now + Self.claimLeaseMilliseconds)
    }

    public func markDelivered(_ delivery: PushDelivery) async throws {
        try await store.markDelivered(delivery, at: clock.nowMilliseconds())
    }

    public func recordFailure(_ delivery: PushDelivery, reason: String, nextAttemptAt: Int64?) async throws {
        try await store.recordFailure(delivery, reason: reason, nextAttemptAt: nextAttemptAt, at: clock.nowMilliseconds())
    }

    public func expire(_ delivery: PushDelivery, reason: String) async throws {
        try await store.expire(delivery, reason: reason, at: clock.nowMilliseconds())
    }

    /// Outbox rows by state (`pending`, `delivered`, `expired`, `failed`): for logs and tests.
    public func outboxCounts() async throws -> [String: Int] {
        try await store.outboxCounts()
    }

    /// Removes finished deliveries older than `retention` (`PushDispatcher`'s sweep).
    @discardableResult
    public func sweepFinishedDeliveries(olderThan retentionMilliseconds: Int64) async throws -> Int {
        try await store.sweepFinishedDeliveries(before: clock.nowMilliseconds() - retentionMilliseconds)
    }
}

extension RegisteredToken {
    /// A stored row back as a token. Rows are written only from validated tokens; anything else
    /// is skipped (nil), not fatal.
    public init?(type: String, token: String, user: String?, registeredMilliseconds: Int64) {
        guard let type = PushTokenType(rawValue: type), let token = try? PushToken(type: type, token: token) else { return nil }
        self.init(token: token, user: user, registeredMilliseconds: registeredMilliseconds)
    }
}
