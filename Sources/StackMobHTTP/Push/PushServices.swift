import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import StackMobCore

/// The push host's background parts, run as services of the app: the delivery service and the
/// push port's own listener (unless `push.listen` is false).
func makePushServices(
    backend: Backend, clock: any ServerClock, transport: any PushTransport, logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void
) async throws -> [any Service] {
    let configuration = backend.configuration
    let dispatchers = try PushSenders.dispatchers(backend: backend, clock: clock, transport: transport, logger: logger)
    var services: [any Service] = [
        PushDeliveryService(
            dispatchers: dispatchers, pollInterval: .milliseconds(configuration.push.delivery.pollIntervalMilliseconds), logger: logger),
    ]
    if configuration.push.listen {
        var pushLogger = logger
        // Tells the push listener's lines (Hummingbird's "listening on" among them) from the API's.
        pushLogger[metadataKey: "sm.listener"] = "push"
        let router = buildPushRouter(backend: backend, clock: clock, standalone: true)
        services.append(
            makeListener(
                responder: MethodOverrideResponder(next: router.buildResponder(), clock: clock), configuration: configuration, clock: clock,
                address: .hostname(configuration.host, port: configuration.push.port),
                onServerRunning: { channel in
                    let port = channel.localAddress?.port ?? configuration.push.port
                    logger.notice("Push host listening", metadata: ["sm.push.port": "\(port)"])
                    await onServerRunning(port)
                },
                logger: pushLogger))
    }
    return services
}
