import Hummingbird

/// Gives an unknown route StackMob's JSON 404 instead of Hummingbird's empty one.
struct NotFoundMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && context.endpointPath == "NotFound" {
            throw RequestError.routeNotFound(method: request.method.rawValue, path: request.uri.path)
        }
    }
}
