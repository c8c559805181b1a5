import Prometheus
import StackMobCore

/// The app's metrics, recorded into one `PrometheusCollectorRegistry` per application (never the
/// process-wide `MetricsSystem`), so that tests running several apps see only their own numbers.
///
/// Names: `stackmob_http_requests_total{route,method,status_class,environment}`,
/// `stackmob_http_request_duration_seconds{route,environment}`,
/// `stackmob_database_duration_seconds{environment,operation}`,
/// `stackmob_push_outbox{environment,state}` (`state="failed"`: deliveries that failed for good),
/// `stackmob_mail_outbox{environment}`, and `stackmob_event_loop_lag_seconds`
/// (`EventLoopStallDetector`) (see docs/operations.md, "Monitoring").
public struct ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    /// The handles of each series, made once: making one validates the names, builds the label
    /// arrays and takes the registry's lock, on every request otherwise.
    private let requestSeries = SeriesCache<RequestSeries, (Prometheus.Counter, DurationHistogram)>()
    private let databaseSeries = SeriesCache<DatabaseSeries, DurationHistogram>()

    /// Each family's `# HELP` line: made in the registry itself, which keeps the first help text
    /// it is given for a name (swift-metrics' factory would give none).
    enum Help {
        static let requests = "HTTP requests answered, by route template, method, status class and environment"
        static let requestDuration = "Time from a request's head to its response, by route template and environment"
        static let databaseDuration = "Time of the datastore's database transactions, by environment and operation"
        static let pushOutbox = "Push deliveries in the outbox, by environment and state (failed: given up for good)"
        static let mailOutbox = "Mails waiting in the outbox, by environment"
    }

    /// Request durations: Prometheus' usual buckets, 5 ms to 10 s.
    static let requestBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]
    /// Database transactions are mostly well under 5 ms: finer buckets at the low end.
    static let databaseBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(500), .seconds(1),
    ]

    /// Requests per minute and the last requests, for the console's traffic pages.
    public let traffic: TrafficRecorder
    /// The event-loop stalls seen since start (`EventLoopStallDetector`), for the console's overview.
    public let stalls = EventLoopStalls()

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), traffic: TrafficRecorder = TrafficRecorder()) {
        self.registry = registry
        self.traffic = traffic
    }

    /// One answered request. `route` is a route template (never a raw path: ids would make one
    /// series per object).
    func request(route: String, method: String, status: Int, environment: String, duration: Duration) {
        let series = RequestSeries(route: route, method: method, statusClass: status / 100, environment: environment)
        let (counter, histogram) = requestSeries.handles(of: series) { [registry] in
            (
                registry.makeCounter(
                    name: "stackmob_http_requests_total",
                    labels: [("route", route), ("method", method), ("status_class", "\(series.statusClass)xx"), ("environment", environment)],
                    help: Help.requests),
                registry.makeDurationHistogram(
                    name: "stackmob_http_request_duration_seconds", labels: [("route", route), ("environment", environment)],
                    buckets: Self.requestBuckets, help: Help.requestDuration)
            )
        }
        counter.increment()
        histogram.recordNanoseconds(Self.nanoseconds(duration))
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// One database transaction of the datastore.
    public func database(environment: EnvironmentKind, operation: TimedStorageEngine.Operation, duration: Duration) {
        let histogram = databaseSeries.handles(of: DatabaseSeries(environment: environment, operation: operation)) { [registry] in
            registry.makeDurationHistogram(
                name: "stackmob_database_duration_seconds", labels: [("environment", environment.rawValue), ("operation", operation.rawValue)],
                buckets: Self.databaseBuckets, help: Help.databaseDuration)
        }
        histogram.recordNanoseconds(Self.nanoseconds(duration))
    }

    /// The outbox depths, read when `/metrics` is scraped.
    func recordOutboxes(of backend: Backend) async {
        for kind in EnvironmentKind.allCases {
            let environment = backend.environment(kind)
            let counts = (try? await environment.push.outboxCounts()) ?? [:]
            for state in ["pending", "delivered", "failed", "expired"] {
                registry.makeGauge(name: "stackmob_push_outbox", labels: [("environment", kind.rawValue), ("state", state)], help: Help.pushOutbox)
                    .set(Int64(counts[state] ?? 0))
            }
            if let depth = try? await environment.mailOutboxDepth() {
                registry.makeGauge(name: "stackmob_mail_outbox", labels: [("environment", kind.rawValue)], help: Help.mailOutbox).set(Int64(depth))
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
