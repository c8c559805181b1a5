import Hummingbird

/// Answers a `ConsoleError` with its redirect or refusal page. Anything else goes on to the
/// project's `ErrorMiddleware`, which maps it like every other error.
struct ConsoleErrorMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ConsoleError {
            return try error.response(from: request, context: context)
        }
    }
}
