import AsyncHTTPClient
import Crypto
import NIOSSL
import StackMobCore

/// The HTTP/2 clients of the `apns` sender, one per environment that uses it (each may trust its
/// own extra CA through `apns.ca_file`). `OutboundClients` shuts them down.
final class APNsClients: Sendable {
    let clients: [EnvironmentKind: HTTPClient]

    init(configuration: StackMobConfiguration) throws {
        var clients: [EnvironmentKind: HTTPClient] = [:]
        for kind in EnvironmentKind.allCases {
            let push = configuration.settings(for: kind).push
            guard PushTokenType.allCases.contains(where: { push.sender(for: $0) == .apns }), let apns = push.apns else { continue }
            var tls = TLSConfiguration.makeClientConfiguration()
            if let caFile = apns.caFile {
                // Trusted in addition to the system roots: for a local stub or an inspecting proxy.
                tls.additionalTrustRoots = [.file(caFile)]
            }
            var httpConfiguration = HTTPClient.Configuration(
                tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10)))
            // APNs speaks HTTP/2 only; ALPN selects it.
            httpConfiguration.httpVersion = .automatic
            clients[kind] = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: httpConfiguration)
        }
        self.clients = clients
    }

    func shutdown() async throws {
        for client in clients.values { try await client.shutdown() }
    }

    func sender(_ settings: APNsSettings, environment: EnvironmentKind, timeoutSeconds: Int, clock: any ServerClock) throws -> APNsPushSender {
        guard let client = clients[environment] else {
            throw ConfigurationError(key: "environments.\(environment.rawValue).push.apns", "has no client")
        }
        let key: P256.Signing.PrivateKey
        do {
            key = try APNsJWT.loadKey(file: settings.keyFile)
        } catch {
            throw ConfigurationError(key: "environments.\(environment.rawValue).push.apns.key_file", "cannot be read as a P-256 private key")
        }
        return APNsPushSender(
            client: client, settings: settings, endpoint: settings.resolvedEndpoint(for: environment),
            tokens: APNsTokenCache(key: key, keyID: settings.keyID, teamID: settings.teamID, clock: clock), timeoutSeconds: timeoutSeconds)
    }
}
