import Hummingbird

/// The API router's one middleware: `FrontMiddleware` for every request, then `CallerMiddleware`
/// for every request but the OpenAPI document's, which needs no credentials.
///
/// One middleware rather than two: Hummingbird runs each middleware of a route in a responder of
/// its own, whose frames, closures and executor switches cost more than `HEAD /` itself did in
/// our code (issue 19). Both parts run on the executor this one runs on (`nonisolated(nonsending)`).
/// Routes and the not-found answer are below it, as they were below the two.
struct APIMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    let front: FrontMiddleware
    let caller: CallerMiddleware

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await front.respond(to: request, context: context) { request, context in
            // The router matched the path before any middleware runs; an unknown route has no
            // endpoint yet (it is set as the 404 is thrown).
            if context.endpointPath == OpenAPIController.path {
                return try await next(request, context)
            }
            return try await caller.respond(to: request, context: context) { try await next($0, $1) }
        }
    }
}
