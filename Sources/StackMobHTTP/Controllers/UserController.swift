import HTTPTypes
import Hummingbird
import StackMobCore

/// The reserved actions of user schemas (PROTOCOL §8): `/<userSchema>/accessToken` and friends.
///
/// A step of `CallerMiddleware` (`claim`, then `respond`) rather than routes: `/:schema/:id` must
/// keep reading ids such as `logout` under schemas that are not user schemas (`/todo/logout`),
/// and other verbs on `/user/logout` stay ordinary object requests. Runs after authentication,
/// which sets the caller.
struct UserController: Sendable {
    typealias Context = StackMobRequestContext
    let maxBodyBytes: Int
    /// `limits.max_expanded_response_bytes`.
    var maxExpandedResponseBytes = StackMobConfiguration().maxExpandedResponseBytes
    /// Logins, refreshes and resets slow their guessers; forgot-password requests are limited apart.
    let attempts: SecretAttempts

    /// What this middleware does with a request.
    enum Claim {
        /// A write to a user schema that marks its e-mail field (§6.6) once it succeeded.
        case write(UserSchema, fieldTypes: String, UserAccounts)
        case action(UserAction, UserSchema, UserAccounts)
    }

    /// Nil for a request that is not this middleware's. `segments` are the path's.
    func claim(_ request: Request, context: Context, segments: [Substring]) -> Claim? {
        guard let environment = context.environment else { return nil }
        if request.method == .post || request.method == .put, (1...2).contains(segments.count),
            let fieldTypes = request.headers[.stackMobFieldTypes], let name = try? PathSegment.decode(segments[0]),
            let schema = environment.users.userSchema(named: name)
        {
            return .write(schema, fieldTypes: fieldTypes, environment.users)
        }
        guard segments.count == 2, let name = try? PathSegment.decode(segments[0]),
            let schema = environment.users.userSchema(named: name), let action = UserAction(rawValue: String(segments[1])),
            Self.methods[action, default: []].contains(request.method)
        else { return nil }
        return .action(action, schema, environment.users)
    }

    nonisolated(nonsending) func respond(
        to claim: Claim, _ request: Request, context: Context, next: nonisolated(nonsending) (Request, Context) async throws -> Response
    ) async throws -> Response {
        switch claim {
        case .write(let schema, let fieldTypes, let users):
            let response = try await next(request, context)
            if (200..<300).contains(response.status.code) {
                try await users.markEmailField(schema, fieldTypes: fieldTypes, caller: context.caller)
            }
            return response
        case .action(let action, let schema, let users):
            return try await perform(action, request, context, users, schema)
        }
    }

    private func perform(_ action: UserAction, _ request: Request, _ context: Context, _ users: UserAccounts, _ schema: UserSchema)
        async throws -> Response
    {
        switch action {
        case .accessToken: return try await accessToken(request, context, users, schema)
        case .refreshToken: return try await refreshToken(request, context, users, schema)
        case .logout: return try await logout(request, context, users, schema)
        case .loggedInUser: return try await loggedInUser(request, context, users, schema)
        case .forgotPassword: return try await forgotPassword(request, context, users, schema)
        case .resetPassword: return try await resetPassword(request, context, users, schema)
        case .login: return try await cookieLogin(request, context, users, schema)
        }
    }

    /// The verbs each action answers to; any other verb on its path is an ordinary object request.
    static let methods: [UserAction: [HTTPRequest.Method]] = [
        .accessToken: [.post, .get], .refreshToken: [.post], .logout: [.get], .loggedInUser: [.get], .forgotPassword: [.post],
        .resetPassword: [.post], .login: [.get],
    ]

    /// The endpoints this middleware answers, for the route log (`{schema}` is a user schema).
    static var routes: [RegisteredRoute] {
        UserAction.allCases.flatMap { action in
            methods[action, default: []].map { RegisteredRoute(host: .api, method: $0.rawValue, path: "/{schema}/\(action.rawValue)") }
        }
    }

    /// Login (§8.2): form body, JSON fallback, or the GET variant's query.
    private func accessToken(_ request: Request, _ context: Context, _ users: UserAccounts, _ schema: UserSchema) async throws -> Response {
        let parameters = try await FormBody.parameters(request, limit: maxBodyBytes)
        guard let login = parameters[schema.loginField], let password = parameters[schema.passwordField] else {
            throw UserAccountError.accessDenied
        }
        let grant = try await attempts.attempt(request, context, account: "\(schema.name)/\(login)") {
            try await users.login(schema, login: login, password: password, newPassword: parameters["new_password"])
        }
        context.logger.info("User logged in", metadata: ["sm.schema": "\(schema.name)", "sm.user": "\(login)"])
        return JSONResponse.make(grant.json)
    }

    /// Refresh (§8.3): `grant_type` optional, either `mac_algorithm` spelling accepted (D9).
    private func refreshToken(_ request: Request, _ context: Context, _ users: UserAccounts, _ schema: UserSchema) async throws -> Response {
        let parameters = try await FormBody.parameters(request, limit: maxBodyBytes)
        guard let refresh = parameters["refresh_token"], !refresh.isEmpty else { throw UserAccountError.invalidGrant }
        if let grantType = parameters["grant_type"], grantType != "refresh_token" { throw UserAccountError.invalidGrant }
        let grant = try await attempts.attempt(request, context) { try await users.refresh(schema, refreshToken: refresh) }
        context.logger.info(
            "Session refreshed", metadata: ["sm.schema": "\(schema.name)", "sm.user": "\(grant.user[schema.loginField]?.stringValue ?? "")"])
        return JSONResponse.make(grant.json)
    }

    /// Logout (§8.4): revokes the signer's session; 200 `{}` whatever the token's state (D20).
    private func logout(_ request: Request, _ context: Context, _ users: UserAccounts, _ schema: UserSchema) async throws -> Response {
        if case .user(schema.name, _) = context.caller, let header = request.headers[.authorization],
            let mac = MACAuthorization.parse(header)
        {
            try await users.logout(accessToken: mac.id)
            context.logger.info("User logged out", metadata: ["sm.schema": "\(schema.name)"])
        }
        // The legacy cookie session (§8.9) ends too, answered with the logged-out cookie.
        if let environment = context.environment, try await users.endCookieSession(request.headers[.cookie], environment: environment.kind) {
            context.logger.info("Cookie session ended", metadata: ["sm.schema": "\(schema.name)"])
            var response = JSONResponse.make(.object([:]))
            response.headers[.setCookie] = CookieSession.loggedOutHeader(environment.kind)
            return response
        }
        return JSONResponse.make(.object([:]))
    }

    /// The signer's user object (§8.5), honouring `X-StackMob-Select` and expansion.
    private func loggedInUser(_ request: Request, _ context: Context, _ users: UserAccounts, _ schema: UserSchema) async throws -> Response {
        let select = try request.headers[.stackMobSelect].map { header throws(QueryError) in try QueryRequest.parseSelect(header) }
        let expand = try ExpandDepth.of(request)
        let user = try await users.loggedInUser(schema, caller: context.caller, select: select, expand: expand)
        return try await JSONResponse.make(.object(user), expandedBy: expand, limit: maxExpandedResponseBytes)
    }

    /// `{"username": id}` (iOS, Java) or `{<loginField>: id}` (JS), §8.6.
    private func forgotPassword(_ request: Request, _ context: Context, _ users: UserAccounts, _ schema: UserSchema) async throws -> Response {
        let parameters = try await FormBody.parameters(request, limit: maxBodyBytes)
        guard let login = parameters["username"] ?? parameters[schema.loginField], !login.isEmpty else {
            throw UserAccountError.unknownUser
        }
        try await attempts.forgotPassword(request, context, account: "\(schema.name)/\(login)") {
            try await users.forgotPassword(schema, login: login)
        }
        context.logger.info("Temporary password issued", metadata: ["sm.schema": "\(schema.name)", "sm.user": "\(login)"])
        return JSONResponse.make(.object([:]))
    }

    /// `{"old": {"password": …}, "new": {"password": …}}`, the inner key literally `password` (§8.7).
    private func resetPassword(_ request: Request, _ context: Context, _ users: UserAccounts, _ schema: UserSchema) async throws -> Response {
        // A MAC signer, or the cookie session's user under an OAuth 1.0 signature (§8.9).
        guard context.caller.sessionUser != nil else { throw UserAccountError.notLoggedIn }
        let body = try await RequestBodyReader.object(request, limit: maxBodyBytes)
        guard let old = body["old"]?.objectValue?["password"]?.stringValue, let new = body["new"]?.objectValue?["password"]?.stringValue
        else { throw UserAccountError.malformedResetBody }
        let account = context.caller.sessionUser.map { "\(schema.name)/\($0.id)" }
        let current = CurrentSession(
            accessToken: request.headers[.authorization].flatMap(MACAuthorization.parse)?.id,
            cookie: context.environment.flatMap { CookieSession.value(in: request.headers[.cookie], $0.kind) })
        try await attempts.attempt(request, context, account: account) {
            try await users.resetPassword(schema, caller: context.caller, old: old, new: new, keeping: current)
        }
        context.logger.info("Password reset", metadata: ["sm.schema": "\(schema.name)"])
        return JSONResponse.make(.object([:]))
    }

    /// Legacy OAuth 1.0 login (§8.9): `username`/`password` query parameters, or the schema's own
    /// login and password field names. Answers the user and a `session_*` cookie.
    private func cookieLogin(_ request: Request, _ context: Context, _ users: UserAccounts, _ schema: UserSchema) async throws -> Response {
        guard let environment = context.environment else { throw UserAccountError.invalidCookieLogin }
        let parameters = try await FormBody.parameters(request, limit: maxBodyBytes)
        guard let login = parameters["username"] ?? parameters[schema.loginField],
            let password = parameters["password"] ?? parameters[schema.passwordField]
        else { throw UserAccountError.invalidCookieLogin }
        let (user, cookie) = try await attempts.attempt(request, context, account: "\(schema.name)/\(login)") {
            try await users.cookieLogin(schema, login: login, password: password)
        }
        context.logger.info("User logged in with a cookie session", metadata: ["sm.schema": "\(schema.name)", "sm.user": "\(login)"])
        var response = JSONResponse.make(.object(user))
        response.headers[.setCookie] = CookieSession.loginHeader(environment.kind, value: cookie)
        return response
    }
}
