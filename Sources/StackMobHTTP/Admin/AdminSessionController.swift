import HTTPTypes
import Hummingbird
import StackMobCore

/// `POST /_admin/session` signs an operator in: `{"name", "password"}` → the session's token
/// (for `Authorization: Bearer`), its CSRF token, and the same token as an `HttpOnly`,
/// `SameSite=Strict` cookie, `Secure` when the browser came over TLS (through a trusted proxy:
/// the server itself speaks plain HTTP). `GET` shows who is signed in (and the CSRF token again,
/// for a console reloaded by the browser); `DELETE` signs out.
struct AdminSessionController {
    static let path = "/_admin/session"
    let operators: OperatorStore
    let throttle: SignInThrottle
    let proxies: TrustedProxies

    /// The session cookie's attributes after its value.
    private func attributes(_ request: Request, _ context: StackMobRequestContext, maxAge: Int64) -> String {
        let secure = ClientOrigin(request, context: context, proxies: proxies).isSecure ? "; Secure" : ""
        return "Path=\(AdminMiddleware.prefix); HttpOnly; SameSite=Strict\(secure); Max-Age=\(maxAge)"
    }

    func addRoutes(to router: some RouterMethods<StackMobRequestContext>) {
        router.post(RouterPath(Self.path), use: signIn)
        router.get(RouterPath(Self.path), use: current)
        router.delete(RouterPath(Self.path), use: signOut)
    }

    @Sendable func signIn(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let body = try await AdminRequest.body(request).objectValue ?? [:]
        guard let name = body["name"]?.stringValue, !name.isEmpty else { throw AdminError.badInput(key: "name", "must be the operator's name") }
        guard let password = body["password"]?.stringValue else { throw AdminError.badInput(key: "password", "must be a string") }
        let client = ClientOrigin(request, context: context, proxies: proxies).address
        let signedIn = try await throttle.attempt(name: name, address: client) {
            try await operators.signIn(name: name, password: password).flatMap { $0.token == nil ? nil : $0 }
        }
        guard let session = signedIn, let token = session.token else {
            context.logger.notice(
                "Operator sign-in refused",
                metadata: ["sm.operator": "\(OperatorStore.isValidName(name) ? name : "(invalid name)")", "sm.client": "\(client ?? "-")"])
            throw AdminError.badCredentials
        }
        context.logger.notice("Operator signed in", metadata: ["sm.operator": "\(name)", "sm.client": "\(client ?? "-")"])
        var headers = HTTPFields()
        headers[.setCookie] =
            "\(AdminAuthMiddleware.cookieName)=\(token); " + attributes(request, context, maxAge: OperatorStore.sessionLifetimeMilliseconds / 1000)
        headers[.cacheControl] = "no-store"
        return JSONResponse.make(
            ["operator": .string(name), "token": .string(token), "csrf_token": .string(session.csrfToken), "expires_at": .integer(session.expiresAt)],
            headers: headers)
    }

    @Sendable func current(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        guard let session = context.operatorSession else { throw AdminError.notSignedIn }
        return JSONResponse.make(
            ["operator": .string(session.operatorName), "csrf_token": .string(session.csrfToken), "expires_at": .integer(session.expiresAt)],
            headers: [.cacheControl: "no-store"])
    }

    @Sendable func signOut(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let name = try AdminRequest.operatorName(context)
        if let token = AdminAuthMiddleware.token(request) {
            try await operators.signOut(token: token, operatorName: name)
        }
        var headers = HTTPFields()
        headers[.setCookie] = "\(AdminAuthMiddleware.cookieName)=; " + attributes(request, context, maxAge: 0)
        return JSONResponse.make(.object([:]), headers: headers)
    }
}
