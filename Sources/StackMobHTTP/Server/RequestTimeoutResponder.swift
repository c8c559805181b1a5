import Hummingbird
import StackMobCore

/// Bounds the time the server spends producing one response (`limits.request_timeout_seconds`):
/// past it, the request's work is cancelled (a database transaction in progress rolls back) and
/// the client gets `504` with a JSON error. 504 rather than 503: the JS SDK retries every 503,
/// and a write that timed out must not be sent again behind the app's back.
///
/// A responder around the whole chain, not a router middleware, because the work must run in a
/// child task that can be abandoned, and only a `Sendable` responder can be called from one. A
/// body streamed after the response started (a file) is not counted.
struct RequestTimeoutResponder<Next: HTTPResponder>: HTTPResponder where Next.Context == StackMobRequestContext {
    typealias Context = StackMobRequestContext
    let next: Next
    let seconds: Int
    let clock: any ServerClock

    func respond(to request: Request, context: Context) async throws -> Response {
        let next = self.next
        let limit = Duration.seconds(seconds)
        return try await withThrowingTaskGroup(of: Response?.self) { group in
            group.addTask { try await next.respond(to: request, context: context) }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            if let first = try await group.next(), let response = first {
                return response
            }
            context.logger.warning(
                "Request timed out", metadata: ["sm.method": "\(request.method.rawValue)", "sm.path": "\(request.uri.path)", "sm.limit_s": "\(seconds)"])
            var response = ErrorMapping.response(for: RequestTimedOut(seconds: seconds))
            response.headers[.stackMobTimeMS] = String(clock.nowMilliseconds())
            return response
        }
    }
}

/// A request that took longer than `limits.request_timeout_seconds`.
struct RequestTimedOut: Error, Sendable {
    let seconds: Int
}
