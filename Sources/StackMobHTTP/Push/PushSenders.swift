import Logging
import StackMobCore

/// The senders of each environment and token type, from `environments.<env>.push.senders`.
enum PushSenders {
    static func dispatchers(
        backend: Backend, clock: any ServerClock, transport: any PushTransport, logger: Logger
    ) throws -> [PushDispatcher] {
        let delivery = backend.configuration.push.delivery
        return try EnvironmentKind.allCases.map { kind -> PushDispatcher in
            let environment = backend.environment(kind)
            let settings = environment.settings.push
            var senders: [PushTokenType: any PushSender] = [:]
            for type in PushTokenType.allCases {
                switch settings.sender(for: type) {
                case .log:
                    senders[type] = LogPushSender(environment: kind, logger: logger)
                case .webhook:
                    // Validated at start-up: a webhook sender has its URL.
                    guard let url = settings.webhookURL else { throw ConfigurationError(key: "environments.\(kind.rawValue).push.webhook_url", "is required") }
                    senders[type] = transport.webhookSender(url: url, environment: kind, timeoutSeconds: delivery.timeoutSeconds)
                case .apns:
                    guard let apnsSettings = settings.apns else { throw ConfigurationError(key: "environments.\(kind.rawValue).push.apns", "is required") }
                    senders[type] = try transport.apnsSender(apnsSettings, environment: kind, timeoutSeconds: delivery.timeoutSeconds, clock: clock)
                }
            }
            return PushDispatcher(environment: kind, registry: environment.push, senders: senders, policy: delivery, clock: clock, logger: logger)
        }
    }
}
