extension UserAccounts {
    /// `GET /<userSchema>/login` (§8.9): checks the password and opens a cookie session.
    /// Returns the user (without its password) and the cookie value, which is stored only as a
    /// hash. Any failure is `invalidCookieLogin`, whose text contains `Invalid`.
    public func cookieLogin(_ schema: UserSchema, login: String, password: String) async throws -> (user: JSONObject, cookie: String) {
        guard let stored = try await storedUser(schema, id: login) else {
            await datastore.passwordHasher.verifyUnknownLogin(password)
            throw UserAccountError.invalidCookieLogin
        }
        guard await datastore.passwordHasher.verify(password, against: stored[schema.passwordField]?.stringValue ?? "") else {
            throw UserAccountError.invalidCookieLogin
        }
        let cookie = SessionSecrets.generateToken()
        try await store.insertCookieSession(
            hash: SessionSecrets.hash(cookie), userSchema: schema.name, userID: login,
            expiresAt: clock.nowMilliseconds() + CookieSession.lifetimeMilliseconds)
        var user = try await datastore.read(id: login, in: schema.name, caller: .privateKey)
        user[schema.loginField] = .string(login)
        return (user, cookie)
    }

    /// The user of a live cookie session named in `Cookie`, nil when there is none.
    public func cookieSessionUser(_ cookieHeader: String?, environment: EnvironmentKind) async -> (schema: String, id: String)? {
        guard let value = CookieSession.value(in: cookieHeader, environment),
            let session = try? await store.cookieSession(hash: SessionSecrets.hash(value)),
            session.expiresAt > clock.nowMilliseconds(), userSchema(named: session.userSchema) != nil
        else { return nil }
        return (session.userSchema, session.userID)
    }

    /// Ends the cookie session named in `Cookie`; true when there was a cookie to answer with
    /// the logged-out value.
    public func endCookieSession(_ cookieHeader: String?, environment: EnvironmentKind) async throws -> Bool {
        guard let value = CookieSession.value(in: cookieHeader, environment) else { return false }
        try await store.deleteCookieSession(hash: SessionSecrets.hash(value))
        return true
    }
}
