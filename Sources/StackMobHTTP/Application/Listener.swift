import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import StackMobCore
import StackMobHTTPServer

/// A listener (the API port, the push port, an HTML5 site, the monitoring port): an `Application`
/// answering with `responder` over `HTTP1Connection`, or over Hummingbird's `HTTP1Channel` with
/// `listen.http1_channel: hummingbird`, with the server's connection limits and timeouts either
/// way, which it counts and enforces on its own (in `connections` when given).
func makeListener<Responder: HTTPResponder>(
    responder: Responder, configuration: StackMobConfiguration, clock: any ServerClock, address: BindAddress,
    connections: ConnectionCounter? = nil, services: [any Service] = [],
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }, logger: Logger
) -> Application<Responder> where Responder.Context == StackMobRequestContext {
    let connections = connections ?? makeConnectionCounter(configuration: configuration, logger: logger)
    let settings = HTTP1ConnectionSettings(configuration, clock: clock, connections: connections)
    let server: HTTPServerBuilder
    var running = onServerRunning
    switch configuration.http1Channel {
    case .native:
        // The API's responder answers on the request's executor; any other through its `respond`.
        server = .native(
            responder: responder as? any LocalResponder<StackMobRequestContext> ?? RespondingResponder(responder: responder), settings: settings)
    case .hummingbird:
        server = .hummingbird(responder: responder, settings: settings, logger: logger)
        // Said at every start: figures taken on this channel must not pass for the default's.
        running = { channel in
            logger.notice("Listener runs Hummingbird's HTTP1Channel", metadata: ["sm.http1_channel": "hummingbird"])
            await onServerRunning(channel)
        }
    }
    return Application(
        responder: responder, server: server, configuration: .init(address: address, serverName: settings.serverName), services: services,
        onServerRunning: running, logger: logger)
}

/// A listener's count of its connections, against the configured limits. Made by the caller of
/// `makeListener` when something else reads it too (the API port's, shown by the console).
func makeConnectionCounter(configuration: StackMobConfiguration, logger: Logger) -> ConnectionCounter {
    ConnectionCounter(
        limit: configuration.maxConnections, limitPerClient: configuration.maxConnectionsPerClient,
        isTrustedProxy: configuration.trustedProxies.contains, logger: logger)
}

/// A listener of its own for one part of the server (`monitoring.port`, `admin.port`) at
/// `host:port`, with the API's limits and timeouts: its lines (Hummingbird's "listening on" among
/// them) tagged `sm.listener=<name>`, and once bound, `started` logged with its address and the
/// port handed to `onServerRunning`.
func makeOwnListener<Responder: HTTPResponder>(
    _ name: String, responder: Responder, host: String, port: Int, configuration: StackMobConfiguration, clock: any ServerClock,
    logger: Logger, started: Logger.Message, onServerRunning: @escaping @Sendable (Int) async -> Void
) -> Application<Responder> where Responder.Context == StackMobRequestContext {
    var tagged = logger
    tagged[metadataKey: "sm.listener"] = .string(name)
    return makeListener(
        responder: responder, configuration: configuration, clock: clock, address: .hostname(host, port: port),
        onServerRunning: { channel in
            let bound = channel.localAddress?.port ?? port
            logger.notice(started, metadata: ["sm.\(name).host": "\(host)", "sm.\(name).port": "\(bound)"])
            await onServerRunning(bound)
        },
        logger: tagged)
}
