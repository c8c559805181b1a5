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
    let router = Router(context: StackMobRequestContext.self)
    router.add(layers: [
        (.errors, ErrorMiddleware()), (.notFound, NotFoundMiddleware()),
        (.surface, MonitoringMiddleware(backend: backend, metrics: metrics, standalone: true)),
    ])
    return [
        makeOwnListener(
            "monitoring", responder: router.buildResponder(), host: configuration.monitoring.host, port: port, configuration: configuration,
            clock: clock, logger: logger, started: "Monitoring listening", onServerRunning: onServerRunning)
    ]
}
