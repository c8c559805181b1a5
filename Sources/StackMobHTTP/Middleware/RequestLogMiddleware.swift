import Hummingbird

/// One log line per request: method, path (never the query or headers, which may carry
/// credentials), status and duration, with the request id Hummingbird tags the logger with.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        Self.log(request, response: response, context: context, since: start)
        return response
    }

    static func log(_ request: Request, response: Response, context: Context, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        context.logger.logRequest(
            RequestLogLine(
                method: request.method.rawValue, path: PushTokenPath.redacted(request.uri.path), status: Int(response.status.code),
                duration: elapsed))
    }
}
