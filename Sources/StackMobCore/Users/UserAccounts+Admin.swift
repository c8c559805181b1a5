/// What the admin API does to users (docs/operations.md, "Admin API"), as an operator rather than
/// as the user.
extension UserAccounts {
    /// Ends every session (access and refresh tokens) of the user.
    public func revokeSessions(_ schema: UserSchema, id: String) async throws {
        guard try await storedUser(schema, id: id) != nil else { throw UserAccountError.unknownUser }
        try await store.deleteSessions(userSchema: schema.name, userID: id)
    }

    /// Sets a temporary password, as forgotPassword does, and hands it to the operator instead of
    /// mailing it: it logs in only together with a new password (§8.6), for 24 hours.
    public func setTemporaryPassword(_ schema: UserSchema, id: String) async throws -> String {
        guard try await storedUser(schema, id: id) != nil else { throw UserAccountError.unknownUser }
        let temporary = String(SessionSecrets.generateToken().prefix(16))
        try await store.setTemporaryPassword(
            userSchema: schema.name, userID: id, hash: datastore.passwordHasher.hash(temporary),
            expiresAt: clock.nowMilliseconds() + Self.temporaryPasswordLifetimeMilliseconds)
        return temporary
    }
}
