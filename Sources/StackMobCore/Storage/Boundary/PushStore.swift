/// Where an environment's push registry and delivery outbox live (PROTOCOL §11): the part of
/// `TokenRegistry` each storage engine implements. Times are the caller's clock, in milliseconds.
public protocol PushStore: Sendable {
    /// Registers a token, linked to `user` (or to nobody); an existing token is re-linked only with
    /// `overwrite`, otherwise `PushError.tokenAlreadyRegistered`. A registered token leaves the
    /// expired list.
    func register(_ token: PushToken, user: String?, overwrite: Bool, at now: Int64) async throws
    /// False when the token was not registered.
    func remove(_ token: PushToken) async throws -> Bool
    /// The tokens linked to any of `users`, oldest registration first.
    func tokens(forUsers users: [String]) async throws -> [RegisteredToken]
    /// Every registered token, ordered by type and token (export).
    func allTokens() async throws -> [RegisteredToken]
    /// The expired list; with `clear`, emptied in the same transaction that read it.
    func expiredTokens(clear: Bool) async throws -> [RegisteredToken]

    /// Resolves the recipients and, unless `fake`, writes one outbox row per reachable token, all
    /// in one transaction.
    func enqueue(_ payload: PushPayload, to recipients: PushRecipients, fake: Bool, notificationID: String, at now: Int64) async throws
        -> PushSendResult
    /// Pending deliveries whose next attempt is due, oldest first, claimed for this process: with
    /// several instances on one database, each delivery is handed to one of them only (its next
    /// attempt moves to `leaseUntil`, so a process that dies mid-delivery hands it on later).
    func claimDueDeliveries(limit: Int, at now: Int64, leaseUntil: Int64) async throws -> [PushDelivery]
    func markDelivered(_ delivery: PushDelivery, at now: Int64) async throws
    /// A failed attempt: the row waits until `nextAttemptAt`, or is given up when it is nil.
    func recordFailure(_ delivery: PushDelivery, reason: String, nextAttemptAt: Int64?, at now: Int64) async throws
    /// The sender called the token invalid: it leaves the registry for the expired list, and its
    /// other pending deliveries are dropped, in one transaction.
    func expire(_ delivery: PushDelivery, reason: String, at now: Int64) async throws
    /// Outbox rows by state (`pending`, `delivered`, `expired`, `failed`).
    func outboxCounts() async throws -> [String: Int]
    /// Deletes finished outbox rows (delivered, expired, failed) that finished before `cutoff`;
    /// returns how many went.
    func sweepFinishedDeliveries(before cutoff: Int64) async throws -> Int
}
