import Hummingbird
import Logging
import ServiceLifecycle
import StackMobCore

/// The operator listener of its own (`admin.port`): the admin API and console only, at
/// `admin.host` (loopback by default), apart from the API port that faces the internet with a
/// key every app ships. None without `admin.port`.
func makeAdminServices(
    admin: AdminMiddleware, configuration: StackMobConfiguration, clock: any ServerClock, logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void
) -> [any Service] {
    guard let port = configuration.admin.port else { return [] }
    let router = Router(context: StackMobRequestContext.self)
    router.add(layers: [
        (.listenerMark, OperatorListenerMiddleware()), (.requestLog, RequestLogMiddleware()), (.errors, ErrorMiddleware()),
        (.notFound, NotFoundMiddleware()), (.surface, admin),
    ])
    return [
        makeOwnListener(
            "admin", responder: router.buildResponder(), host: configuration.admin.host, port: port, configuration: configuration, clock: clock,
            logger: logger, started: "Admin API and console listening", onServerRunning: onServerRunning)
    ]
}

/// Marks the operator listener's requests: a file an operator writes here is linked to the API
/// origin, not to this one.
private struct OperatorListenerMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.listener = .admin
        return try await next(request, context)
    }
}
