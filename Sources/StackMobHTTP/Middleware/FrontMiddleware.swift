import Hummingbird

/// What every request of the API port passes through before its route, credentials or not, in
/// the order it meets them, which is `MiddlewareLayer`'s:
/// 1. it is counted and timed (`RequestMetricsMiddleware`), logged (`RequestLogMiddleware`), and its
///    response stamped with the server's time (`ServerHeadersMiddleware`);
/// 2. the monitoring routes, the push host, the HTML5 sites and the admin API and console answer
///    their own requests (`MonitoringMiddleware`, `PushHostMiddleware`, `HTML5HostMiddleware`,
///    `AdminMiddleware`, the last on the API's own hosts only and unless `admin.on_api_port` is
///    false);
/// 3. the rest is the API: cross-origin headers (`CORSPolicyMiddleware`), then every error as
///    StackMob's JSON error (`ErrorMiddleware`), an unsupported transfer coding refused
///    (`TransferCodingMiddleware`), a target holding `%00` refused (`NULMiddleware`), stored
///    files (`FilesMiddleware`), an unknown route as StackMob's 404 (`NotFoundMiddleware`), and
///    the routes.
///
/// The same middleware, called here through their parts rather than nested one in another's `next`:
/// each nesting level was an async frame holding a copy of the request and its context, and twelve
/// of them were a large share of `HEAD /` (docs/benchmarks.md, "Figures behind design choices").
/// Each type keeps its `handle` for the routers that list it as a middleware. Called by
/// `APIRouter`.
struct FrontMiddleware {
    typealias Context = StackMobRequestContext
    let metrics: RequestMetricsMiddleware
    let headers: ServerHeadersMiddleware
    let monitoring: MonitoringMiddleware
    /// The admin API and console; nil when `admin.on_api_port` is false.
    let admin: AdminMiddleware?
    let push: PushHostMiddleware
    let html5: HTML5HostMiddleware
    let cors: CORSPolicyMiddleware
    /// The local file store's downloads; nil when files live in S3.
    let files: FilesMiddleware?

    nonisolated(nonsending) func respond(
        to request: Request, context: Context, next: nonisolated(nonsending) (Request, Context) async throws -> Response
    ) async throws -> Response {
        let measurement = metrics.begin(request)
        var response: Response
        do {
            response = try await route(request, context: context, next: next)
        } catch {
            metrics.end(measurement, request: request, context: context, error: error)
            throw error
        }
        headers.stamp(&response)
        RequestLogMiddleware.log(request, response: response, context: context, since: measurement.start)
        metrics.end(measurement, request: request, context: context, status: Int(response.status.code))
        return response
    }

    nonisolated(nonsending) private func route(
        _ request: Request, context: Context, next: nonisolated(nonsending) (Request, Context) async throws -> Response
    ) async throws -> Response {
        if monitoring.claims(request, context: context) {
            return try await monitoring.respond(to: request, context: context)
        }
        if let responder = push.responder(for: request) ?? html5.responder(for: request) ?? operatorSurface(for: request) {
            return try await responder.respond(to: request, context: context)
        }
        guard CORSPolicyMiddleware.applies(to: request) else { return try await api(request, context: context, next: next) }
        return try await cors.respond(to: request, context: context) { request, context in
            try await api(request, context: context, next: next)
        }
    }

    /// The admin API or console, for a path under theirs on a host of the API's own: a site's
    /// host (`html5.<env>.hosts`) is the site's origin, where content the operator did not write
    /// is served, and the push host is the push API's.
    private func operatorSurface(for request: Request) -> RouterResponder<StackMobRequestContext>? {
        guard let admin, let responder = admin.responder(for: request), !html5.isSiteHost(request) else { return nil }
        return responder
    }

    nonisolated(nonsending) private func api(
        _ request: Request, context: Context, next: nonisolated(nonsending) (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            try TransferCodingMiddleware.check(request)
            try NULMiddleware.check(request)
            // `/_admin` not served here (off the API port, or on a site's host): no route, before
            // any credentials are asked for.
            if request.isOperatorSurface { throw RequestError.routeNotFound(method: request.method.rawValue, path: request.uri.path) }
            if let files, files.claims(request) {
                return try await files.respond(to: request, context: context)
            }
            return try await next(request, context)
        } catch {
            let error = NotFoundMiddleware.translated(error, request: request, context: context)
            return ErrorMiddleware.response(for: error, request: request, context: context)
        }
    }
}
