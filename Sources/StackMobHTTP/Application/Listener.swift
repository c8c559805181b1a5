import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import StackMobCore

/// A listener (the API port, the push port, an HTML5 site, the monitoring port): an `Application`
/// answering with `responder` over `HTTP1Connection`, with the server's connection limits and
/// timeouts, which it counts and enforces on its own.
func makeListener<Responder: HTTPResponder>(
    responder: Responder, configuration: StackMobConfiguration, clock: any ServerClock, address: BindAddress,
    services: [any Service] = [], onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }, logger: Logger
) -> Application<Responder> where Responder.Context == StackMobRequestContext {
    let connections = ConnectionCounter(
        limit: configuration.maxConnections, limitPerClient: configuration.maxConnectionsPerClient,
        trustedProxies: configuration.trustedProxies, logger: logger)
    let settings = HTTP1ConnectionSettings(configuration, clock: clock, connections: connections)
    return Application(
        // The API's responder answers on the request's executor; any other through its `respond`.
        responder: responder, server: .stackMob(responder: responder as? any LocalResponder ?? RespondingResponder(responder: responder), settings: settings),
        configuration: .init(address: address, serverName: settings.serverName), services: services, onServerRunning: onServerRunning,
        logger: logger)
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
