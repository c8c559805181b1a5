/// Who a notification goes to (PROTOCOL §11.2, §11.3).
public enum PushRecipients: Sendable, Equatable {
    /// Every token linked to one of these users.
    case users([String])
    /// These tokens, registered or not.
    case tokens([PushToken])
    /// Every registered token of the environment (broadcast).
    case everyone
}

/// One delivery of a notification to one token: a row of the outbox.
public struct PushDelivery: Sendable, Equatable {
    public let id: Int64
    /// Shared by every delivery of one send.
    public let notificationID: String
    public let token: PushToken
    public let user: String?
    /// The body for the token's type (`PushPayload.body(for:)`).
    public let payload: JSONObject
    /// Attempts made before this one.
    public let attempts: Int

    public init(id: Int64, notificationID: String, token: PushToken, user: String?, payload: JSONObject, attempts: Int) {
        self.id = id
        self.notificationID = notificationID
        self.token = token
        self.user = user
        self.payload = payload
        self.attempts = attempts
    }
}

/// What a sender made of one delivery.
public enum DeliveryOutcome: Sendable, Equatable {
    case delivered
    /// The token is not (or no longer) valid: it moves to the expired list.
    case invalidToken(reason: String)
    /// A temporary failure: try again after a backoff.
    case retryLater(reason: String)
}

/// The outcome of accepting a send.
public struct PushSendResult: Sendable, Equatable {
    public let notificationID: String
    /// Outbox rows written (0 for `fake` sends, which only validate).
    public let deliveries: Int
    /// Recipient tokens whose type cannot carry a payload this large (iOS above 256 bytes).
    public let skippedForSize: Int

    public init(notificationID: String, deliveries: Int, skippedForSize: Int) {
        self.notificationID = notificationID
        self.deliveries = deliveries
        self.skippedForSize = skippedForSize
    }
}
