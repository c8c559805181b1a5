import Hummingbird

/// One log line per request: method, path (never the query or headers, which may carry
/// credentials), status and duration, with the request id Hummingbird tags the logger with.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        context.logger.info(
            "Request",
            metadata: [
                "sm.method": "\(request.method.rawValue)",
                "sm.path": "\(PushTokenPath.redacted(request.uri.path))",
                "sm.status": "\(response.status.code)",
                "sm.duration_ms": "\(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)",
            ])
        return response
    }
}
