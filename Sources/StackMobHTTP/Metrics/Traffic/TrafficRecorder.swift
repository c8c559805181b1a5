import Synchronization

/// What the console's traffic pages show, kept in this process: per environment, requests per
/// minute over the last day (`MinuteAggregates`) and the last requests (`RecentRequests`). Fed
/// by `RequestMetricsMiddleware` with every answer of the API port. Each instance of a cluster
/// keeps its own; the pages say so.
///
/// Bounded: 1,440 minutes and `recentCapacity` requests per environment, whatever the traffic.
/// Recording takes one lock per request, held for a few stores.
public final class TrafficRecorder: Sendable {
    /// Environments as `RequestMetricsMiddleware` names them: `development`, `production`, and
    /// `admin` for the admin API.
    private struct Environment: Sendable {
        var minutes = MinuteAggregates()
        var recent: RecentRequests

        mutating func record(_ entry: RecentRequests.Entry) {
            minutes.record(minute: entry.at / 60_000, status: entry.status, microseconds: entry.microseconds)
            recent.append(entry)
        }
    }

    let recentCapacity: Int
    private let environments: Mutex<[String: Environment]>

    public init(recentCapacity: Int = 2_000) {
        self.recentCapacity = recentCapacity
        environments = Mutex([:])
    }

    func record(_ entry: RecentRequests.Entry, environment: String) {
        // One lookup of the environment, changed in place.
        environments.withLock { table in
            table[environment, default: Environment(recent: RecentRequests(capacity: recentCapacity))].record(entry)
        }
    }

    /// `count` periods of `width` minutes ending with the current minute, oldest first.
    func periods(environment: String, now: Int64, width: Int64, count: Int) -> [MinuteAggregates.Minute] {
        let minutes = environments.withLock { $0[environment]?.minutes } ?? MinuteAggregates()
        return minutes.periods(endingAt: now / 60_000, width: width, count: count)
    }

    func recent(environment: String, limit: Int, matching filter: RecentRequests.Filter) -> [RecentRequests.Entry] {
        environments.withLock { $0[environment]?.recent.newest(limit, matching: filter) } ?? []
    }
}
