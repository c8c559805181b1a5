import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import StackMobCore

/// A listener (the API port, the push port, an HTML5 site, the monitoring port): an `Application`
/// answering with `responder` over `HTTP1Connection`, with the server's connection limits and
/// timeouts, which it counts and enforces on its own.
func makeListener<Responder: HTTPResponder>(
    responder: Responder, configuration: ServerConfiguration, clock: any ServerClock, address: BindAddress,
    services: [any Service] = [], onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }, logger: Logger
) -> Application<Responder> where Responder.Context == StackMobRequestContext {
    let connections = ConnectionCounter(limit: configuration.maxConnections, logger: logger)
    let settings = HTTP1ConnectionSettings(configuration, clock: clock, connections: connections)
    return Application(
        // The API's responder answers on the request's executor; any other through its `respond`.
        responder: responder, server: .stackMob(responder: responder as? any LocalResponder ?? RespondingResponder(responder: responder), settings: settings),
        configuration: .init(address: address, serverName: settings.serverName), services: services, onServerRunning: onServerRunning,
        logger: logger)
}
