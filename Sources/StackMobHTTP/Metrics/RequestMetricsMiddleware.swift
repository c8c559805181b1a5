import Hummingbird
import StackMobCore

/// Counts and times every request by route template, status class and environment, and keeps it
/// for the console's traffic pages (`TrafficRecorder`). First in the middleware list, so that it
/// sees every answer, the admin API's included.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    let metrics: ServerMetrics
    let clock: any ServerClock

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let measurement = begin(request)
        do {
            let response = try await next(request, context)
            end(measurement, request: request, context: context, status: Int(response.status.code))
            return response
        } catch {
            end(measurement, request: request, context: context, error: error)
            throw error
        }
    }

    /// When a request began, and the environment it is counted in.
    struct Measurement {
        let start: ContinuousClock.Instant
        let environment: String
    }

    func begin(_ request: Request) -> Measurement {
        Measurement(start: .now, environment: Self.environment(of: request))
    }

    func end(_ measurement: Measurement, request: Request, context: Context, status: Int) {
        let route = Self.route(of: request, context: context)
        let duration = ContinuousClock.now - measurement.start
        let method = request.method.rawValue
        metrics.request(route: route, method: method, status: status, environment: measurement.environment, duration: duration)
        metrics.traffic.record(
            RecentRequests.Entry(
                at: clock.nowMilliseconds(), method: Self.clipped(method, to: 16), route: route,
                path: Self.clipped(PushTokenPath.template(request.uri.path), to: 512),
                status: status, microseconds: ServerMetrics.nanoseconds(duration) / 1_000, user: context.notes.signedUser,
                requestID: context.logger[metadataKey: TextLogHandler.requestIDKey]?.description ?? ""),
            environment: measurement.environment)
    }

    /// At most `limit` bytes of `text`, for what the traffic pages keep: a path as long as a
    /// request head allows, 2,000 times over, would hold megabytes per environment.
    static func clipped(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        return String(decoding: text.utf8.prefix(limit), as: UTF8.self) + "…"
    }

    /// A request whose error no middleware turned into a response.
    func end(_ measurement: Measurement, request: Request, context: Context, error: any Error) {
        end(measurement, request: request, context: context, status: Int((error as? any HTTPResponseError)?.status.code ?? 500))
    }

    /// The matched route's template; requests answered by middleware (users, custom code, files,
    /// the admin API's own router) are grouped by their area, never by their raw path.
    static func route(of request: Request, context: Context) -> String {
        if let endpoint = context.endpointPath { return endpoint }
        let path = request.uri.path
        for area in ["/_admin", "/_files", "/metrics", "/health", "/ready"] where path.isPath(inArea: area) {
            return area == "/_admin" || area == "/_files" ? area + "/*" : area
        }
        return "(middleware)"
    }

    /// `admin` for the admin API, else the environment the API version selects.
    static func environment(of request: Request) -> String {
        if request.uri.path.hasPrefix(AdminMiddleware.prefix) { return "admin" }
        return EnvironmentKind(apiVersion: APIVersion.parse(accept: request.headers.value(of: .accept))).rawValue
    }
}
