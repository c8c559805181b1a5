import Hummingbird
import StackMobCore

/// Counts and times every request by route template, status class and environment. First in
/// the middleware list, so that it sees every answer, the admin API's included.
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let environment = Self.environment(of: request)
        do {
            let response = try await next(request, context)
            record(request, context: context, status: Int(response.status.code), environment: environment, start: start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(request, context: context, status: Int(status), environment: environment, start: start)
            throw error
        }
    }

    private func record(_ request: Request, context: Context, status: Int, environment: String, start: ContinuousClock.Instant) {
        metrics.request(
            route: Self.route(of: request, context: context), method: request.method.rawValue, status: status, environment: environment,
            duration: ContinuousClock.now - start)
    }

    /// The matched route's template; requests answered by middleware (users, custom code, files,
    /// the admin API's own router) are grouped by their area, never by their raw path.
    static func route(of request: Request, context: Context) -> String {
        if let endpoint = context.endpointPath { return endpoint }
        let path = request.uri.path
        for area in ["/_admin", "/_files", "/metrics", "/health", "/ready"] where path == area || path.hasPrefix(area + "/") {
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
