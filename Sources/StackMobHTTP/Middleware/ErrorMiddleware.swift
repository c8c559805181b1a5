import Hummingbird
import StackMobCore

/// Turns every error thrown below it into StackMob's JSON error body (`ErrorMapping`), and logs
/// the server's own failures with the request id.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return Self.response(for: error, request: request, context: context)
        }
    }

    /// StackMob's JSON error for `error`, logged: at `debug` when it is the client's, at `error`
    /// when it is the server's.
    static func response(for error: any Error, request: Request, context: Context) -> Response {
        let mapped = ErrorMapping.map(error)
        if mapped.isClientError {
            context.logger.debug("Request refused", metadata: ["sm.status": "\(mapped.status.code)", "sm.error": "\(mapped.message)"])
        } else {
            context.logger.error("Request failed", metadata: ["sm.error": "\(String(reflecting: error))"])
        }
        var response = ErrorMapping.response(for: error)
        if request.method == .head {
            response.body = .init()
        }
        return response
    }
}
