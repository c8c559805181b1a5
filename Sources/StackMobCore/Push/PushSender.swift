/// Delivers one notification to one device token: the log, a webhook, APNs. Chosen per
/// environment and token type in configuration (`push.senders`).
///
/// Runs outside any database transaction. A thrown error counts as `retryLater`.
public protocol PushSender: Sendable {
    func deliver(_ delivery: PushDelivery) async throws -> DeliveryOutcome
}
