import Metrics
import StackMobCore
import Synchronization

/// The metric handles of each series, made on first use. Series are few (route templates ×
/// methods × status classes × environments), so the cache is never pruned.
final class SeriesCache<Key: Hashable & Sendable, Handles>: Sendable {
    // The handles are swift-metrics' Counter and Timer: classes that are Sendable by contract.
    private let handles = Mutex<[Key: Handles]>([:])

    func handles(of key: Key, make: () -> Handles) -> Handles {
        handles.withLock { cache in
            if let made = cache[key] { return made }
            let made = make()
            cache[key] = made
            return made
        }
    }
}

/// One series of `stackmob_http_requests_total` and its duration.
struct RequestSeries: Hashable, Sendable {
    let route: String
    let method: String
    let statusClass: Int
    let environment: String
}

/// One series of `stackmob_database_duration_seconds`.
struct DatabaseSeries: Hashable, Sendable {
    let environment: EnvironmentKind
    let operation: TimedStorageEngine.Operation
}
