import Hummingbird
import StackMobCore

/// What an environment is answering, as this instance saw it (`TrafficRecorder`; each instance
/// of a cluster keeps its own), over the admin API (docs/operations.md, "Admin API"):
///
/// - `GET /_admin/environments/<env>/traffic?window=hour|day`: requests, 4xx, 5xx and p50/p99
///   latency per minute over the last hour, or per hour over the last day;
/// - `GET /_admin/environments/<env>/requests?status=4xx&path=/todo&user=user/olivia&since=<ms>&until=<ms>&limit=<n>`:
///   the last requests, newest first: time, method, route, path (no query string; push tokens
///   as their route template), status, duration, the signed-in user and the request id, which
///   the log lines of the request carry.
struct AdminTrafficController {
    let backend: Backend
    let traffic: TrafficRecorder
    let clock: any ServerClock

    func addRoutes(to router: some RouterMethods<StackMobRequestContext>) {
        router.get("/_admin/environments/:env/traffic", use: periods)
        router.get("/_admin/environments/:env/requests", use: requests)
    }

    /// The windows the console draws: 60 minutes, or 24 hours.
    enum Window: String {
        case hour, day

        var width: Int64 { self == .hour ? 1 : 60 }
        var count: Int { self == .hour ? 60 : 24 }
    }

    @Sendable func periods(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try AdminRequest.environment(context, backend: backend)
        let name = request.uri.queryParameters.get("window") ?? "hour"
        guard let window = Window(rawValue: name) else { throw AdminError.badInput(key: "window", "must be hour or day") }
        let periods = traffic.periods(environment: environment.kind.rawValue, now: clock.nowMilliseconds(), width: window.width, count: window.count)
        return JSONResponse.make([
            "window": .string(window.rawValue), "period_minutes": .integer(window.width), "scope": "instance",
            "periods": .array(periods.map(Self.json)),
        ])
    }

    static func json(_ period: MinuteAggregates.Minute) -> JSONValue {
        var object: JSONObject = [
            "at": .integer(period.minute * 60_000), "requests": .integer(Int64(period.requests)),
            "client_errors": .integer(Int64(period.clientErrors)), "server_errors": .integer(Int64(period.serverErrors)),
        ]
        object["p50_ms"] = period.latencyMilliseconds(at: 0.5).map(JSONValue.float) ?? .null
        object["p99_ms"] = period.latencyMilliseconds(at: 0.99).map(JSONValue.float) ?? .null
        return .object(object)
    }

    @Sendable func requests(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try AdminRequest.environment(context, backend: backend)
        let query = request.uri.queryParameters
        let filter = try Self.filter(
            status: query.get("status"), path: query.get("path"), user: query.get("user"), since: query.get("since"), until: query.get("until"))
        let text = query.get("limit") ?? "200"
        guard let limit = Int(text), (1...traffic.recentCapacity).contains(limit) else {
            throw AdminError.badInput(key: "limit", "must be an integer from 1 to \(traffic.recentCapacity)")
        }
        let entries = traffic.recent(environment: environment.kind.rawValue, limit: limit, matching: filter)
        return JSONResponse.make(["scope": "instance", "requests": .array(entries.map(Self.json))])
    }

    /// The list's filter from the query; every value is checked, and an empty one means any.
    static func filter(status: String?, path: String?, user: String?, since: String?, until: String?) throws -> RecentRequests.Filter {
        var filter = RecentRequests.Filter()
        if let status, !status.isEmpty {
            let digit = status.utf8.first.map { Int($0) - Int(UInt8(ascii: "0")) } ?? 0
            guard (1...5).contains(digit), status.count == 1 || status.dropFirst().lowercased() == "xx" else {
                throw AdminError.badInput(key: "status", "must be a status class: 1xx, 2xx, 3xx, 4xx or 5xx")
            }
            filter.statusClass = digit
        }
        if let path, !path.isEmpty {
            guard path.hasPrefix("/"), path.count <= 2_048 else { throw AdminError.badInput(key: "path", "must be a path prefix starting with /") }
            filter.pathPrefix = path
        }
        if let user, !user.isEmpty { filter.user = user }
        for (key, text) in [("since", since), ("until", until)] {
            guard let text, !text.isEmpty else { continue }
            guard let value = Int64(text), value >= 0 else { throw AdminError.badInput(key: key, "must be milliseconds since 1970") }
            if key == "since" { filter.since = value } else { filter.until = value }
        }
        return filter
    }

    static func json(_ entry: RecentRequests.Entry) -> JSONValue {
        [
            "at": .integer(entry.at), "method": .string(entry.method), "route": .string(entry.route), "path": .string(entry.path),
            "status": .integer(Int64(entry.status)), "duration_ms": .float(Double(entry.microseconds) / 1_000),
            "user": entry.user.map(JSONValue.string) ?? .null, "request_id": .string(entry.requestID),
        ]
    }
}
