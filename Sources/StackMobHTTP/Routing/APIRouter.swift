import HTTPTypes
import Hummingbird
import StackMobHTTPServer

/// The API listener's routes, and what every request passes through before them:
/// `FrontMiddleware` for all, then `CallerMiddleware` for all but the routes that need no
/// credentials (the OpenAPI document).
///
/// In place of Hummingbird's router with its middleware, to the same effect: the path is matched as
/// Hummingbird matches it (`RouteTrie`), its parameters and template are in the context before the
/// middleware runs, an unknown route or method is Hummingbird's 404 (`NotFoundResponder`: endpoint
/// `NotFound`, `HTTPError(.notFound)`, which `FrontMiddleware` answers as StackMob's), and a
/// route's errors reach `FrontMiddleware` as they are thrown. Hummingbird ran the router and each
/// middleware in a responder of its own, whose frames, copies of the request and context, and
/// executor switches cost more than our part of `HEAD /` (docs/benchmarks.md, "Figures behind
/// design choices"); here the middleware run on the executor the request arrives on
/// (`nonisolated(nonsending)`), and so do the routes' handlers (`APIHandler`).
struct APIRouter: HTTPResponder {
    typealias Context = StackMobRequestContext

    /// A path's routes: its template (the request's `endpointPath`, which metrics group by) and a
    /// responder for each method.
    struct Endpoint: Sendable {
        let template: String
        var routes: [Route] = []
    }

    struct Route: Sendable {
        let method: HTTPRequest.Method
        let handler: APIHandler
        /// Registered before the routes that need a caller: `CallerMiddleware` is skipped.
        let open: Bool
    }

    let routes: RouteTrie<Endpoint>
    let front: FrontMiddleware
    let caller: CallerMiddleware
    /// The configured app name, which a first-generation path carries (`FirstGenerationPath`).
    let appName: String

    func respond(to request: Request, context: Context) async throws -> Response {
        try await answer(request, context: context)
    }

    nonisolated(nonsending) func answer(_ request: Request, context: Context) async throws -> Response {
        do {
            var request = request
            var routed = context
            firstGeneration(&request, context: &routed)
            let route = resolve(request, context: &routed)
            return try await front.respond(to: request, context: routed) { request, context in
                if let route, route.open {
                    return try await route.handler(request, context)
                }
                return try await caller.respond(to: request, context: context) { request, context in
                    guard let route else {
                        context.coreContext.endpointPath.value = "NotFound"
                        throw HTTPError(.notFound)
                    }
                    return try await route.handler(request, context)
                }
            }
        } catch let error as any HTTPResponseError {
            // As Hummingbird's router: an error that got past the middleware (the monitoring
            // routes', say) and knows its own response answers with it.
            return try error.response(from: request, context: context)
        }
    }

    /// A first-generation request goes on under today's spelling of its path, with the
    /// environment its path names and the target its signature covers in `context`.
    private func firstGeneration(_ request: inout Request, context: inout Context) {
        guard let path = request.head.path, FirstGenerationPath.mayBe(path),
            let firstGeneration = FirstGenerationPath(received: path, appName: appName)
        else { return }
        context.firstGeneration = (firstGeneration.environment, path)
        var head = request.head
        head.path = firstGeneration.target
        request = Request(head: head, body: request.body)
    }

    /// The route for the request's path and method, its parameters and template set in `context`;
    /// nil for none.
    private func resolve(_ request: Request, context: inout Context) -> Route? {
        guard let (endpoint, parameters) = routes.resolve(request.uri.path),
            let route = endpoint.routes.first(where: { $0.method == request.method })
        else { return nil }
        context.coreContext.parameters = parameters
        context.coreContext.endpointPath.value = endpoint.template
        return route
    }
}

/// A route's handler, run on the executor the request arrives on: `APIRouter` calls it without
/// the executor switches of a Hummingbird responder and its closures.
typealias APIHandler = nonisolated(nonsending) @Sendable (Request, StackMobRequestContext) async throws -> Response

/// Where the API's controllers register their routes (`route`): routes added before
/// `requireCaller()` skip `CallerMiddleware`.
final class APIRouterBuilder {
    private var routes = RouteTrie<APIRouter.Endpoint>()
    private var open = true

    /// The routes added from now on are answered for a caller only (`CallerMiddleware`).
    func requireCaller() {
        open = false
    }

    /// `handler` answers `method` on `path`.
    func route(_ method: HTTPRequest.Method, _ path: RouterPath, _ handler: @escaping APIHandler) {
        let route = APIRouter.Route(method: method, handler: handler, open: open)
        routes.add(path, make: { APIRouter.Endpoint(template: path.description) }) { endpoint in
            // As Hummingbird's router: a method has one route per path.
            precondition(!endpoint.routes.contains { $0.method == method }, "\(method.rawValue) \(path) already has a route")
            endpoint.routes.append(route)
        }
    }

    func build(front: FrontMiddleware, caller: CallerMiddleware, appName: String) -> APIRouter {
        APIRouter(routes: routes, front: front, caller: caller, appName: appName)
    }
}
