/// Everything the server calls out to, chosen by the composition root (`StackMobAdapters` over
/// HTTP in the server): custom-code webhooks, social providers, push transports, and the file
/// store for binary fields when it is not the local directory.
public protocol OutboundGateways: Sendable {
    var customCode: any CustomCodeGateway { get }
    var social: any SocialGateway { get }
    var push: any PushTransport { get }
    /// Nil = the local directory (`Backend.open`).
    var fileStore: (any FileStore)? { get }

    /// Closes the clients; called once, when the application stops or fails to start.
    func shutdown() async
}
