/// The senders that leave the process (`environments.<env>.push.senders`): a webhook of the
/// team's own, or Apple's provider API. Built by the composition root from `StackMobAdapters`;
/// the `log` sender needs no transport (`LogPushSender`).
public protocol PushTransport: Sendable {
    /// POSTs each delivery as JSON to `url` (`push.webhook_url`).
    func webhookSender(url: String, environment: EnvironmentKind, timeoutSeconds: Int) -> any PushSender

    /// Apple's HTTP/2 provider API with token-based authentication (`push.apns`).
    ///
    /// - Throws: `ConfigurationError` when the key file cannot be read, so that start-up stops.
    func apnsSender(_ settings: APNsSettings, environment: EnvironmentKind, timeoutSeconds: Int, clock: any ServerClock) throws -> any PushSender
}
