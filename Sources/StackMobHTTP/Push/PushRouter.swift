import Hummingbird
import StackMobCore

/// The push host's routes (PROTOCOL §1.1, §11), served on `push.port` and, on the API port, for
/// requests whose `Host` starts with `push.` (`PushHostMiddleware`).
///
/// - Parameter standalone: true for the push port's own listener, which needs the request log and
///   the server headers; on the API port the API router has already applied them.
func buildPushRouter(
    backend: Backend, clock: any ServerClock, standalone: Bool, bodies: BodyBudget? = nil, routeLog: RouteLog = RouteLog()
) -> Router<StackMobRequestContext> {
    let bodies = bodies ?? BodyBudget(configuration: backend.configuration)
    let router = Router(context: StackMobRequestContext.self)
    let routes = RecordingRouter(router: router, log: routeLog, host: .push)
    router.add(
        layers: (standalone ? [(.requestLog, RequestLogMiddleware()), (.serverHeaders, ServerHeadersMiddleware(clock: clock))] : []) + [
            (.errors, ErrorMiddleware()), (.transferCoding, TransferCodingMiddleware()), (.nul, NULMiddleware()),
            (.notFound, NotFoundMiddleware()), (.bodyBudget, BodyBudgetMiddleware(budget: bodies)),
            (.authentication, AuthenticationMiddleware(backend: backend, clock: clock)),
        ])
    PushController(maxBodyBytes: backend.configuration.maxBodyBytes).addRoutes(to: routes)
    return router
}

/// On the API port: requests for the push host go to the push routes. The push host is chosen by
/// a `Host` starting with `push.` (`push.stackmob.com`, `push.mob1.stackmob.com`, any
/// `push.<your domain>`), and, for legacy Java 0.1, by a `/push/<universal endpoint>` path.
struct PushHostMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    let push: RouterResponder<StackMobRequestContext>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let responder = responder(for: request) else { return try await next(request, context) }
        return try await responder.respond(to: request, context: context)
    }

    /// The push router, for a request to the push host or to a legacy push path.
    func responder(for request: Request) -> RouterResponder<StackMobRequestContext>? {
        Self.isPushHost(request.head.authority) || Self.isLegacyPushPath(request.uri.path) ? push : nil
    }

    static func isPushHost(_ authority: String?) -> Bool {
        authority?.lowercased().hasPrefix("push.") ?? false
    }

    /// `/push/<universal endpoint>`: a schema named `push` keeps every other path.
    static func isLegacyPushPath(_ path: String) -> Bool {
        guard path.hasPrefix("/push/") else { return false }
        return PushController.universalPaths.contains(String(path.dropFirst("/push/".count)))
    }
}
