import Hummingbird

/// Gives an unknown route StackMob's JSON 404 instead of Hummingbird's empty one.
struct NotFoundMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            throw Self.translated(error, request: request, context: context)
        }
    }

    /// The router's own 404 as StackMob's; any other error as it is.
    static func translated(_ error: any Error, request: Request, context: Context) -> any Error {
        guard let error = error as? HTTPError, error.status == .notFound, context.endpointPath == "NotFound" else { return error }
        return RequestError.routeNotFound(method: request.method.rawValue, path: request.uri.path)
    }
}
