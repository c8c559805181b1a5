import Metrics
import Prometheus
import StackMobCore

/// The app's metrics, recorded into one `PrometheusCollectorRegistry` per application (never the
/// process-wide `MetricsSystem`), so that tests running several apps see only their own numbers.
///
/// Names: `stackmob_http_requests_total{route,method,status_class,environment}`,
/// `stackmob_http_request_duration_seconds{route,environment}`,
/// `stackmob_database_duration_seconds{environment,operation}`,
/// `stackmob_push_outbox{environment,state}` (`state="failed"`: deliveries that failed for good),
/// `stackmob_mail_outbox{environment}` (see README "Monitoring").
public struct ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    /// The handles of each series, made once: making one through the factory validates the
    /// names, builds the label arrays and takes the registry's lock, on every request otherwise.
    private let requestSeries = SeriesCache<RequestSeries, (Metrics.Counter, Metrics.Timer)>()
    private let databaseSeries = SeriesCache<DatabaseSeries, Metrics.Timer>()

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        // Database transactions are mostly well under 5 ms: finer buckets at the low end.
        factory.durationHistogramBuckets["stackmob_database_duration_seconds"] = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(500), .seconds(1),
        ]
        self.factory = factory
    }

    /// One answered request. `route` is a route template (never a raw path: ids would make one
    /// series per object).
    func request(route: String, method: String, status: Int, environment: String, duration: Duration) {
        let series = RequestSeries(route: route, method: method, statusClass: status / 100, environment: environment)
        let (counter, timer) = requestSeries.handles(of: series) { [factory] in
            (
                Metrics.Counter(
                    label: "stackmob_http_requests_total",
                    dimensions: [("route", route), ("method", method), ("status_class", "\(series.statusClass)xx"), ("environment", environment)],
                    factory: factory),
                Metrics.Timer(
                    label: "stackmob_http_request_duration_seconds", dimensions: [("route", route), ("environment", environment)], factory: factory)
            )
        }
        counter.increment()
        timer.recordNanoseconds(Self.nanoseconds(duration))
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }

    /// One database transaction of the datastore.
    public func database(environment: EnvironmentKind, operation: TimedStorageEngine.Operation, duration: Duration) {
        let timer = databaseSeries.handles(of: DatabaseSeries(environment: environment, operation: operation)) { [factory] in
            Metrics.Timer(
                label: "stackmob_database_duration_seconds", dimensions: [("environment", environment.rawValue), ("operation", operation.rawValue)],
                factory: factory)
        }
        timer.recordNanoseconds(Self.nanoseconds(duration))
    }

    /// The outbox depths, read when `/metrics` is scraped.
    func recordOutboxes(of backend: Backend) async {
        for kind in EnvironmentKind.allCases {
            let environment = backend.environment(kind)
            let counts = (try? await environment.push.outboxCounts()) ?? [:]
            for state in ["pending", "delivered", "failed", "expired"] {
                Gauge(label: "stackmob_push_outbox", dimensions: [("environment", kind.rawValue), ("state", state)], factory: factory)
                    .record(counts[state] ?? 0)
            }
            if let depth = try? await environment.mailOutboxDepth() {
                Gauge(label: "stackmob_mail_outbox", dimensions: [("environment", kind.rawValue)], factory: factory).record(depth)
            }
        }
    }

    /// The Prometheus text format.
    func render() -> [UInt8] {
        registry.emitToBuffer()
    }

    /// Wraps each environment's storage so that its transactions are timed.
    public func instrument(_ kind: EnvironmentKind, _ engine: any StorageEngine) -> any StorageEngine {
        TimedStorageEngine(base: engine) { operation, duration in self.database(environment: kind, operation: operation, duration: duration) }
    }
}
