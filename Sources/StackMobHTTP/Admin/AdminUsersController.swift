import Hummingbird
import StackMobCore

/// Users over the admin API (docs/operations.md, "Admin API"), under
/// `/_admin/environments/<env>/users/<schema>`:
///
/// - `GET …?<query>`: search, with the full query language (password fields never shown);
/// - `POST …/<id>/temporary_password`: a temporary password, answered to the operator;
/// - `POST …/<id>/forgot_password`: mails one, as the user's forgotPassword would;
/// - `DELETE …/<id>/sessions`: ends every session of the user.
///
/// Role membership is `aclrole`'s `users` relationship: `PUT …/objects/aclrole/<role>`.
struct AdminUsersController {
    let backend: Backend

    func addRoutes(to router: some RouterMethods<StackMobRequestContext>) {
        let base = "/_admin/environments/:env/users/:schema"
        router.get(RouterPath(base), use: search)
        router.post(RouterPath(base + "/:id/temporary_password"), use: temporaryPassword)
        router.post(RouterPath(base + "/:id/forgot_password"), use: forgotPassword)
        router.delete(RouterPath(base + "/:id/sessions"), use: revokeSessions)
    }

    @Sendable func search(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        var context = context
        let (environment, _, _) = try user(context)
        context.environment = environment
        context.caller = .privateKey
        let objects = DatastoreController(maxBodyBytes: backend.configuration.maxBodyBytes)
        return try await objects.query(request, context: context)
    }

    @Sendable func temporaryPassword(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let (environment, schema, id) = try user(context)
        let temporary = try await environment.users.setTemporaryPassword(schema, id: id)
        try await audit(context, "users.temporary_password", environment, schema, id)
        return JSONResponse.make(["temporary_password": .string(temporary)], headers: [.cacheControl: "no-store"])
    }

    @Sendable func forgotPassword(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let (environment, schema, id) = try user(context)
        try await environment.users.forgotPassword(schema, login: id)
        try await audit(context, "users.forgot_password", environment, schema, id)
        return JSONResponse.make(.object([:]))
    }

    @Sendable func revokeSessions(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let (environment, schema, id) = try user(context)
        try await environment.users.revokeSessions(schema, id: id)
        try await audit(context, "users.revoke_sessions", environment, schema, id)
        return JSONResponse.make(.object([:]))
    }

    private func user(_ context: StackMobRequestContext) throws -> (AppEnvironment, UserSchema, String) {
        let environment = try AdminRequest.environment(context, backend: backend)
        let name = context.parameters.get("schema") ?? ""
        guard let schema = environment.users.userSchema(named: name) else { throw AdminError.notFound("The user schema '\(name)'") }
        return (environment, schema, context.parameters.get("id") ?? "")
    }

    private func audit(_ context: StackMobRequestContext, _ action: String, _ environment: AppEnvironment, _ schema: UserSchema, _ id: String) async throws {
        try await backend.operators.audit(
            try AdminRequest.operatorName(context), action: action,
            detail: ["environment": .string(environment.kind.rawValue), "schema": .string(schema.name), "id": .string(id)])
    }
}
