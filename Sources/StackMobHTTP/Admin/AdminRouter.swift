import Hummingbird
import StackMobCore

/// The admin API's routes, behind its own authentication.
func buildAdminRouter(
    backend: Backend, clock: any ServerClock, throttle: SignInThrottle, bodies: BodyBudget, fixtures: FixtureLoader = FixtureLoader(fixture: nil),
    fileOrigin: StoredFileOrigin, traffic: TrafficRecorder = TrafficRecorder(), health: InstanceHealth = InstanceHealth(),
    routeLog: RouteLog = RouteLog()
) -> Router<StackMobRequestContext> {
    let router = Router(context: StackMobRequestContext.self)
    let routes = RecordingRouter(router: router, log: routeLog, host: .api)
    router.add(layers: [
        (.errors, ErrorMiddleware()), (.nul, NULMiddleware()), (.notFound, NotFoundMiddleware()),
        (.bodyBudget, BodyBudgetMiddleware(budget: bodies)),
        (.authentication, AdminAuthMiddleware(operators: backend.operators)),
    ])
    AdminSessionController(operators: backend.operators, throttle: throttle, proxies: backend.configuration.trustedProxies)
        .addRoutes(to: routes)
    AdminAuditController(operators: backend.operators).addRoutes(to: routes)
    AdminSchemaController(backend: backend).addRoutes(to: routes)
    AdminObjectsController(backend: backend, fileOrigin: fileOrigin).addRoutes(to: routes)
    AdminUsersController(backend: backend).addRoutes(to: routes)
    AdminEnvironmentController(backend: backend).addRoutes(to: routes)
    AdminPushController(backend: backend).addRoutes(to: routes)
    AdminHTML5Controller(backend: backend).addRoutes(to: routes)
    AdminMailController(backend: backend).addRoutes(to: routes)
    AdminTrafficController(backend: backend, traffic: traffic, clock: clock).addRoutes(to: routes)
    AdminHealthController(backend: backend, health: health).addRoutes(to: routes)
    AdminBackupController(backend: backend, clock: clock, throttle: throttle, proxies: backend.configuration.trustedProxies).addRoutes(to: routes)
    // Emptying an environment is routed only where it is meant to be (`admin.reset_environments`).
    let resettable = backend.configuration.admin.resettable(ciMode: backend.configuration.ciMode)
    if !resettable.isEmpty {
        AdminResetController(backend: backend, fixtures: fixtures, environments: resettable).addRoutes(to: routes)
    }
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
        let body: JSONValue
        do {
            body = try await RequestBodyReader.json(request, limit: 10 * 1024 * 1024)
        } catch is RequestError {
            throw AdminError.badInput(key: "body", "must be a JSON object")
        }
        guard !holdsNUL(body) else { throw AdminError.badInput(key: "body", "holds U+0000, which no name or value may contain") }
        return body
    }

    /// Whether a key or a string anywhere in `value` holds U+0000. SQLite's text binding ends at
    /// it, so a sign-in as `"ops\u0000x"` looked up the operator `ops`, under a rate limit of its
    /// own; PostgreSQL's text cannot hold it at all (a 500).
    private static func holdsNUL(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let object): object.contains { FieldValueRules.containsNUL($0.key) || holdsNUL($0.value) }
        case .array(let elements): elements.contains(where: holdsNUL)
        case .null, .bool, .integer, .float, .string: FieldValueRules.containsNUL(value)
        }
    }

    /// Runs a StackMob API handler for the `:env` environment as the private key would, and
    /// audits a successful write by environment and the path's schema and id (never by value).
    static func asPrivateKey(
        backend: Backend, _ handler: @escaping @Sendable (Request, StackMobRequestContext) async throws -> Response, audit action: String?
    ) -> @Sendable (Request, StackMobRequestContext) async throws -> Response {
        { request, context in
            var context = context
            let environment = try AdminRequest.environment(context, backend: backend)
            context.environment = environment
            context.caller = .privateKey
            let response = try await handler(request, context)
            if let action, (200..<300).contains(response.status.code) {
                var detail: JSONObject = ["environment": .string(environment.kind.rawValue)]
                for name in ["schema", "id"] {
                    if let value = context.parameters.get(name) { detail[name] = .string(value) }
                }
                if request.method == .delete, context.parameters.get("id") == nil, let query = request.uri.query {
                    detail["query"] = .string(query)
                }
                try await backend.operators.audit(try operatorName(context), action: action, detail: .object(detail))
            }
            return response
        }
    }
}
