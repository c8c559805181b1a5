import Logging

/// The default sender: each delivery is a structured log line, so a developer sees what would be
/// sent. The token itself is not logged (it addresses a real device); its type and a short
/// prefix are.
public struct LogPushSender: PushSender {
    let logger: Logger
    let environment: EnvironmentKind

    public init(environment: EnvironmentKind, logger: Logger) {
        self.environment = environment
        self.logger = logger
    }

    public func deliver(_ delivery: PushDelivery) async throws -> DeliveryOutcome {
        logger.info(
            "Push notification delivered to the log (sender: log)",
            metadata: [
                "sm.environment": "\(environment.rawValue)", "sm.push.notification": "\(delivery.notificationID)",
                "sm.push.type": "\(delivery.token.type.rawValue)", "sm.push.token_prefix": "\(delivery.token.token.prefix(8))",
                "sm.push.user": "\(delivery.user ?? "")", "sm.push.payload": "\(JSONWriter.string(.object(delivery.payload)))",
            ])
        return .delivered
    }
}
