/// Push for one environment (`environments.<env>.push`, PROTOCOL §11, D12).
public struct PushSettings: Sendable, Equatable {
    /// Whether a request with the public key alone (no OAuth 1.0 signature) may register and
    /// remove tokens. True in development; false in production by default, because such a
    /// request could re-link any device token to any user id.
    public var publicRegistration: Bool
    /// The sender for each token type; a type not listed uses `log`.
    public var senders: [PushTokenType: PushSenderKind] = [:]
    /// Where the `webhook` sender POSTs each delivery.
    public var webhookURL: String?
    /// Apple's provider API, for the `apns` sender.
    public var apns: APNsSettings?

    public init(publicRegistration: Bool = true) {
        self.publicRegistration = publicRegistration
    }

    public func sender(for type: PushTokenType) -> PushSenderKind {
        senders[type] ?? .log
    }
}

/// How deliveries leave the server.
public enum PushSenderKind: String, Sendable, CaseIterable {
    /// A structured log line per delivery (the default).
    case log
    /// A JSON POST per delivery to `push.webhook_url`, for teams that bridge to APNs or FCM.
    case webhook
    /// Apple's HTTP/2 provider API with token-based (.p8, ES256) authentication.
    case apns
}

/// `environments.<env>.push.apns`. The key file is a secret: its path may be logged, never its content.
public struct APNsSettings: Sendable, Equatable {
    /// The .p8 signing key from the Apple developer account (PEM, EC P-256).
    public var keyFile: String
    /// The key's 10-character identifier (`kid`).
    public var keyID: String
    /// The developer team id (`iss`).
    public var teamID: String
    /// The app's bundle id (`apns-topic`).
    public var topic: String
    /// The provider API base URL; nil = sandbox in development, production for versions ≥ 1.
    public var endpoint: String?
    /// A PEM file of extra CA certificates to trust (a local stub, a TLS-inspecting proxy).
    public var caFile: String?

    public static let sandboxEndpoint = "https://api.sandbox.push.apple.com"
    public static let productionEndpoint = "https://api.push.apple.com"

    public init(keyFile: String, keyID: String, teamID: String, topic: String, endpoint: String? = nil, caFile: String? = nil) {
        self.keyFile = keyFile
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.endpoint = endpoint
        self.caFile = caFile
    }

    public func resolvedEndpoint(for kind: EnvironmentKind) -> String {
        endpoint ?? (kind == .development ? Self.sandboxEndpoint : Self.productionEndpoint)
    }
}

/// The process-wide push keys (`push`): the push host's own listener and the delivery service.
public struct PushServerSettings: Sendable, Equatable {
    /// Whether the push host also listens on its own port (it is always served on the API port
    /// for requests whose `Host` starts with `push.`).
    public var listen = true
    /// The push host's port; 0 = any free port (tests).
    public var port = 8081
    public var delivery = PushDeliverySettings()

    public init() {}
}

/// `push.delivery`: how the outbox is worked off.
public struct PushDeliverySettings: Sendable, Equatable {
    /// Attempts per delivery before it is given up (`failed`).
    public var maxAttempts = 10
    /// Wait after the first failed attempt; doubled after each further one.
    public var initialBackoffSeconds = 5
    /// Longest wait between two attempts.
    public var maxBackoffSeconds = 3600
    /// How often the outbox is checked for due deliveries.
    public var pollIntervalMilliseconds = 1000
    /// Time limit of one webhook or APNs request.
    public var timeoutSeconds = 30
    /// How long finished deliveries (delivered, expired, failed) stay in the outbox for the admin
    /// API and the console before the sweep deletes them; 0 keeps them forever.
    public var retentionDays = 7

    public init() {}
}
