import AsyncHTTPClient
import StackMobCore

/// Everything the server calls out to over HTTP, behind the domain's protocols: custom-code
/// webhooks, Facebook and Twitter, push (webhook and APNs) and S3. The composition root makes one
/// per process and hands it to the HTTP layer, which imports none of these clients and shuts them
/// down when the application stops.
public final class OutboundClients: OutboundGateways {
    public let customCode: any CustomCodeGateway
    public let social: any SocialGateway
    public let push: any PushTransport
    /// The configured store for binary fields; nil = the local directory (`Backend.open`).
    public let fileStore: (any FileStore)?

    /// Webhooks, social providers, push webhooks and S3 share this one.
    private let client: HTTPClient
    private let apns: APNsClients

    public init(configuration: StackMobConfiguration) async throws {
        var settings = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5)))
        // An unreachable webhook must fail at once (503 + Retry-After, which the SDKs retry),
        // not after connection retries that would eat the method's time budget.
        settings.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: settings)
        let apns: APNsClients
        do {
            apns = try APNsClients(configuration: configuration)
        } catch {
            try? await client.shutdown()
            throw error
        }
        self.client = client
        self.apns = apns
        customCode = CustomCodeWebhooks(client: client)
        social = HTTPSocialGateway(client: client)
        push = HTTPPushTransport(client: client, apns: apns)
        switch configuration.files.store {
        case .local: fileStore = nil
        case .s3: fileStore = configuration.files.s3.map { S3FileStore(settings: $0, client: client) }
        }
    }

    public func shutdown() async {
        try? await apns.shutdown()
        try? await client.shutdown()
    }
}

/// Push senders over HTTP: the team's webhook on the shared client, APNs on its own HTTP/2 ones.
struct HTTPPushTransport: PushTransport {
    let client: HTTPClient
    let apns: APNsClients

    func webhookSender(url: String, environment: EnvironmentKind, timeoutSeconds: Int) -> any PushSender {
        WebhookPushSender(client: client, url: url, environment: environment, timeoutSeconds: timeoutSeconds)
    }

    func apnsSender(_ settings: APNsSettings, environment: EnvironmentKind, timeoutSeconds: Int, clock: any ServerClock) throws -> any PushSender {
        try apns.sender(settings, environment: environment, timeoutSeconds: timeoutSeconds, clock: clock)
    }
}
