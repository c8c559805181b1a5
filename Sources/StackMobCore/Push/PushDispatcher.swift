import Logging

/// Delivers an environment's due outbox rows through its senders and records each outcome:
/// retries with exponential backoff up to `maxAttempts`, invalid tokens to the expired list.
///
/// One dispatcher per environment, driven by one loop (`PushDeliveryService`), so a row is never
/// handed to two senders at once. Delivery is at least once: a crash between a send and its
/// record sends that row again after the restart.
public struct PushDispatcher: Sendable {
    public let environment: EnvironmentKind
    let registry: TokenRegistry
    let senders: [PushTokenType: any PushSender]
    let policy: PushDeliverySettings
    let clock: any ServerClock
    let logger: Logger

    public init(
        environment: EnvironmentKind, registry: TokenRegistry, senders: [PushTokenType: any PushSender], policy: PushDeliverySettings,
        clock: any ServerClock, logger: Logger
    ) {
        self.environment = environment
        self.registry = registry
        self.senders = senders
        self.policy = policy
        self.clock = clock
        self.logger = logger
    }

    /// Delivers up to `limit` due rows; returns how many were attempted.
    @discardableResult
    public func deliverDue(limit: Int = 100) async throws -> Int {
        let due = try await registry.dueDeliveries(limit: limit)
        for delivery in due {
            if Task.isCancelled { break }
            let sender = senders[delivery.token.type] ?? LogPushSender(environment: environment, logger: logger)
            let outcome: DeliveryOutcome
            do {
                outcome = try await sender.deliver(delivery)
            } catch {
                outcome = .retryLater(reason: "\(error)")
            }
            // Stopped mid-send (graceful shutdown): the row stays as it was and resumes after the restart.
            if Task.isCancelled, case .retryLater = outcome { break }
            try await record(outcome, for: delivery)
        }
        return due.count
    }

    private func record(_ outcome: DeliveryOutcome, for delivery: PushDelivery) async throws {
        var metadata: Logger.Metadata = [
            "sm.environment": "\(environment.rawValue)", "sm.push.notification": "\(delivery.notificationID)",
            "sm.push.delivery": "\(delivery.id)", "sm.push.type": "\(delivery.token.type.rawValue)", "sm.push.attempt": "\(delivery.attempts + 1)",
        ]
        switch outcome {
        case .delivered:
            try await registry.markDelivered(delivery)
            logger.debug("Push delivery sent", metadata: metadata)
        case .invalidToken(let reason):
            try await registry.expire(delivery, reason: reason)
            metadata["sm.push.reason"] = "\(reason)"
            logger.notice("Push token reported invalid: moved to the expired list", metadata: metadata)
        case .retryLater(let reason):
            let attempts = delivery.attempts + 1
            let next = attempts < policy.maxAttempts ? clock.nowMilliseconds() + backoffMilliseconds(afterAttempt: attempts) : nil
            try await registry.recordFailure(delivery, reason: reason, nextAttemptAt: next)
            metadata["sm.push.reason"] = "\(reason)"
            if next == nil {
                logger.error("Push delivery given up after the last attempt", metadata: metadata)
            } else {
                logger.warning("Push delivery failed; will retry", metadata: metadata)
            }
        }
    }

    /// initial × 2^(attempt-1), capped at `maxBackoffSeconds`.
    func backoffMilliseconds(afterAttempt attempt: Int) -> Int64 {
        let initial = Int64(policy.initialBackoffSeconds) * 1000
        let cap = Int64(policy.maxBackoffSeconds) * 1000
        let exponent = min(max(attempt - 1, 0), 30)
        return min(initial << Int64(exponent), cap)
    }
}
