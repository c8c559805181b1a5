import Hummingbird
import Logging
import ServiceLifecycle
import StackMobCore

/// The monitoring listener of its own (`monitoring.port`): `/metrics`, `/health` and `/ready`
/// only, at `monitoring.host` (loopback by default). None without `monitoring.port`.
func makeMonitoringServices(
    backend: Backend, metrics: ServerMetrics, clock: any ServerClock, logger: Logger, onServerRunning: @escaping @Sendable (Int) async -> Void
) -> [any Service] {
    let configuration = backend.configuration
    guard configuration.monitoring.enabled, let port = configuration.monitoring.port else { return [] }
    var monitoringLogger = logger
    // Tells this listener's lines (Hummingbird's "listening on" among them) from the API's.
    monitoringLogger[metadataKey: "sm.listener"] = "monitoring"
    let router = Router(context: StackMobRequestContext.self)
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: NotFoundMiddleware())
    router.add(middleware: MonitoringMiddleware(backend: backend, metrics: metrics, standalone: true))
    return [
        // The same connection limits and timeouts as the API's listener.
        makeListener(
            responder: router.buildResponder(), configuration: configuration, clock: clock,
            address: .hostname(configuration.monitoring.host, port: port),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                logger.notice("Monitoring listening", metadata: ["sm.monitoring.port": "\(bound)"])
                await onServerRunning(bound)
            },
            logger: monitoringLogger)
    ]
}
