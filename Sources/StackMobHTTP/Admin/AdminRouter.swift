import Hummingbird
import StackMobCore

/// The admin API's routes (issue 15), behind its own authentication.
func buildAdminRouter(backend: Backend, clock: any ServerClock, throttle: SignInThrottle) -> Router<StackMobRequestContext> {
    let router = Router(context: StackMobRequestContext.self)
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: NotFoundMiddleware())
    router.add(middleware: AdminAuthMiddleware(operators: backend.operators))
    AdminSessionController(operators: backend.operators, throttle: throttle).addRoutes(to: router)
    AdminAuditController(operators: backend.operators).addRoutes(to: router)
    AdminSchemaController(backend: backend).addRoutes(to: router)
    AdminObjectsController(backend: backend).addRoutes(to: router)
    AdminUsersController(backend: backend).addRoutes(to: router)
    AdminEnvironmentController(backend: backend).addRoutes(to: router)
    return router
}

/// Shared by the admin controllers.
enum AdminRequest {
    /// The `:env` path parameter.
    static func environment(_ context: StackMobRequestContext, backend: Backend) throws -> AppEnvironment {
        let name = context.parameters.get("env") ?? ""
        guard let kind = EnvironmentKind(rawValue: name) else { throw AdminError.notFound("The environment '\(name)'") }
        return backend.environment(kind)
    }

    static func operatorName(_ context: StackMobRequestContext) throws -> String {
        guard let session = context.operatorSession else { throw AdminError.notSignedIn }
        return session.operatorName
    }

    static func body(_ request: Request) async throws -> JSONValue {
        do {
            return try await RequestBodyReader.json(request, limit: 10 * 1024 * 1024)
        } catch is RequestError {
            throw AdminError.badInput(key: "body", "must be a JSON object")
        }
    }
}
