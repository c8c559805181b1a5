import Logging

/// Logins, sessions and password flows of one environment (PROTOCOL §8).
///
/// Secrets never leave this type except in a `TokenGrant` or a mail. The controller logs the
/// outcomes with the request's logger; this type logs only what the request cannot see (a mail
/// failure).
public struct UserAccounts: Sendable {
    let datastore: Datastore
    let store: any TokenStore
    let settings: EnvironmentSettings
    let clock: any ServerClock
    let mailer: any Mailer
    /// Public for the retention sweep, which forgets nonces whose window has passed.
    public let nonces: any NonceStore
    /// Where a signed request's session is found and its nonce recorded at once, if the storage
    /// can (`SignedSessionStore`).
    let signedSessions: (any SignedSessionStore)?
    /// Seals the social providers' tokens before they are stored (`UserAccounts+Social`).
    let sealingKey: SealingKey
    let logger: Logger
    /// Shared by every copy of this value: one cache per environment.
    let macKeys = MACKeyCache()

    /// How long a forgotPassword temporary password works (§8.6).
    static let temporaryPasswordLifetimeMilliseconds: Int64 = 24 * 3600 * 1000

    public init(
        datastore: Datastore, store: any TokenStore, settings: EnvironmentSettings, clock: any ServerClock, mailer: any Mailer,
        nonces: any NonceStore = NonceCache(), signedSessions: (any SignedSessionStore)? = nil, sealingKey: SealingKey,
        logger: Logger
    ) {
        self.datastore = datastore
        self.store = store
        self.settings = settings
        self.clock = clock
        self.mailer = mailer
        self.nonces = nonces
        self.signedSessions = signedSessions
        self.sealingKey = sealingKey
        self.logger = logger
    }

    /// The configured user schema of that name (the iOS SDK lower-cases it, so compare so).
    public func userSchema(named name: String) -> UserSchema? {
        settings.userSchemas.first { $0.name == name.lowercased() }
    }

    // MARK: - Login and sessions

    /// `accessToken` (§8.2). A temporary password logs in only together with `newPassword`,
    /// which then becomes the password (D8).
    public func login(_ schema: UserSchema, login: String, password: String, newPassword: String?) async throws -> TokenGrant {
        guard let stored = try await storedUser(schema, id: login) else {
            await datastore.passwordHasher.verifyUnknownLogin(password)
            throw UserAccountError.accessDenied
        }
        let hash = stored[schema.passwordField]?.stringValue ?? ""
        let newPassword = newPassword.flatMap { $0.isEmpty ? nil : $0 }
        if await !datastore.passwordHasher.verify(password, against: hash) {
            guard try await isValidTemporaryPassword(password, schema: schema, userID: login) else { throw UserAccountError.accessDenied }
            guard newPassword != nil else { throw UserAccountError.temporaryPasswordResetRequired }
        }
        if let newPassword {
            try await changePassword(schema, userID: login, to: newPassword, keeping: .none)
        }
        return try await issue(schema, userID: login)
    }

    /// `refreshToken` (§8.3): a new session replaces the one of the refresh token, which stops
    /// working.
    public func refresh(_ schema: UserSchema, refreshToken: String) async throws -> TokenGrant {
        let refreshHash = SessionSecrets.hash(refreshToken)
        guard let session = try await store.session(refreshHash: refreshHash), session.userSchema == schema.name,
            session.createdAt > refreshIssuedBefore
        else {
            throw UserAccountError.invalidGrant
        }
        let (grant, next) = try await makeSession(schema, userID: session.userID)
        guard try await store.rotateSession(refreshHash: refreshHash, to: next) else { throw UserAccountError.invalidGrant }
        return grant
    }

    /// Refresh tokens issued at or before this instant are past `refresh_token_lifetime_days`.
    /// A session's refresh token is issued with it, so the session's creation time is its age.
    var refreshIssuedBefore: Int64 {
        clock.nowMilliseconds() - Int64(settings.refreshTokenLifetimeDays) * 86_400_000
    }

    /// The retention sweep's part for users (`TokenStore.sweepExpired`); returns the rows deleted.
    public func sweepExpiredSessions() async throws -> Int {
        try await store.sweepExpired(now: clock.nowMilliseconds(), refreshIssuedBefore: refreshIssuedBefore)
    }

    /// `logout` (§8.4): revokes the session of this access token, if any (idempotent, D20).
    public func logout(accessToken: String) async throws {
        try await store.deleteSession(accessHash: SessionSecrets.hash(accessToken))
    }

    /// `loggedInUser` (§8.5).
    public func loggedInUser(_ schema: UserSchema, caller: Caller, select: [String]?, expand: Int = 0) async throws -> JSONObject {
        guard let (userSchema, id) = caller.sessionUser, userSchema == schema.name else { throw UserAccountError.notLoggedIn }
        // The user schema's read permission applies; a user object owns itself (`Datastore+Access`).
        return try await datastore.read(id: id, in: schema.name, select: select, expand: expand, caller: caller)
    }

    // MARK: - Passwords

    /// `forgotPassword` (§8.6): mails a temporary password valid 24 h; the old one keeps working.
    public func forgotPassword(_ schema: UserSchema, login: String) async throws {
        guard let user = try await storedUser(schema, id: login) else { throw UserAccountError.unknownUser }
        let field = try await emailField(of: schema)
        guard let address = user[field]?.stringValue, !address.isEmpty else {
            throw UserAccountError.noEmailAddress
        }
        let temporary = String(SessionSecrets.generateToken().prefix(16))
        try await store.setTemporaryPassword(
            userSchema: schema.name, userID: login, hash: datastore.passwordHasher.hash(temporary),
            expiresAt: clock.nowMilliseconds() + Self.temporaryPasswordLifetimeMilliseconds)
        // Sent after the write committed: mail is network I/O, never inside a transaction.
        let message = MailMessage(
            to: address, subject: "Your temporary password",
            body: """
                A temporary password was requested for the account '\(login)'.

                Temporary password: \(temporary)

                It works for 24 hours, only to log in and choose a new password. Your current password keeps working.
                """, secret: temporary)
        do {
            try await mailer.send(message)
        } catch {
            logger.error("Temporary password mail failed", metadata: ["sm.schema": "\(schema.name)", "sm.user": "\(login)"])
            throw UserAccountError.mailDeliveryFailed
        }
    }

    /// `resetPassword` (§8.7): the logged-in user changes their password, proving the old one.
    /// `resetPassword` (§8.7): the user's other sessions end; `current` stays logged in.
    public func resetPassword(_ schema: UserSchema, caller: Caller, old: String, new: String, keeping current: CurrentSession) async throws {
        guard let (userSchema, id) = caller.sessionUser, userSchema == schema.name else { throw UserAccountError.notLoggedIn }
        guard !new.isEmpty else { throw UserAccountError.invalidNewPassword }
        let hash = try await storedUser(schema, id: id)?[schema.passwordField]?.stringValue ?? ""
        guard await datastore.passwordHasher.verify(old, against: hash) else { throw UserAccountError.wrongOldPassword }
        try await changePassword(schema, userID: id, to: new, keeping: current)
    }

    /// `X-StackMob-FieldTypes: <field>=forgotpassword` on a user-schema write (§6.6): marks the
    /// field holding the e-mail address, unless configuration names one.
    ///
    /// Only a private-key (OAuth 1.0) request marks it: the marking decides where every user's
    /// temporary password is mailed, so it is the app's choice, never a caller's. From anyone
    /// else the hint is ignored without an error: the Java SDK sends the header with every model
    /// save (PROTOCOL §2.4), sign-ups included, and such a save must keep working. The field
    /// itself is stored as any field is (a string); an app whose e-mail field is not `email`
    /// configures `email_field`.
    public func markEmailField(_ schema: UserSchema, fieldTypes header: String, caller: Caller) async throws {
        guard caller.isPrivateKey, schema.emailField == nil,
            let field = FieldTypesHeader.parse(header).first(where: { $0.type == "forgotpassword" })?.path,
            Identifier.isValidFieldName(field), field != schema.passwordField, field != schema.loginField
        else { return }
        try await store.markEmailField(userSchema: schema.name, field: field)
    }

    /// The configured e-mail field, else the one a client marked, else `email`.
    func emailField(of schema: UserSchema) async throws -> String {
        if let configured = schema.emailField { return configured }
        return try await store.markedEmailField(userSchema: schema.name) ?? "email"
    }

    // MARK: - Helpers

    /// A new password ends every other session of the user: whoever held the old one (or a
    /// session opened with it) is logged out.
    private func changePassword(_ schema: UserSchema, userID: String, to password: String, keeping current: CurrentSession) async throws {
        try await datastore.storePassword(password, userID: userID, schema: schema)
        try await store.deleteTemporaryPassword(userSchema: schema.name, userID: userID)
        try await store.revokeSessions(userSchema: schema.name, userID: userID, keeping: current)
    }

    private func isValidTemporaryPassword(_ password: String, schema: UserSchema, userID: String) async throws -> Bool {
        guard let temporary = try await store.temporaryPassword(userSchema: schema.name, userID: userID),
            temporary.expiresAt > clock.nowMilliseconds()
        else { return false }
        return await datastore.passwordHasher.verify(password, against: temporary.hash)
    }

    func issue(_ schema: UserSchema, userID: String) async throws -> TokenGrant {
        let (grant, session) = try await makeSession(schema, userID: userID)
        try await store.insertSession(session, replacingOthers: settings.singleSession)
        return grant
    }

    private func makeSession(_ schema: UserSchema, userID: String) async throws -> (TokenGrant, StoredSession) {
        let user = try await datastore.read(id: userID, in: schema.name, caller: .privateKey)
        let access = SessionSecrets.generateToken()
        let macKey = SessionSecrets.generateToken()
        let refresh = SessionSecrets.generateToken()
        let now = clock.nowMilliseconds()
        let session = StoredSession(
            accessHash: SessionSecrets.hash(access), refreshHash: SessionSecrets.hash(refresh), userSchema: schema.name, userID: userID,
            sealedMACKey: try SessionSecrets.seal(macKey: macKey, accessToken: access),
            expiresAt: now + Int64(settings.accessTokenLifetimeSeconds) * 1000, createdAt: now)
        var visible = user
        // The Java SDK reads the login field as a string (§8.2).
        visible[schema.loginField] = .string(userID)
        let grant = TokenGrant(
            accessToken: access, macKey: macKey, refreshToken: refresh, expiresIn: settings.accessTokenLifetimeSeconds, user: visible)
        return (grant, session)
    }

    /// The stored user, password hash included.
    func storedUser(_ schema: UserSchema, id: String) async throws -> JSONObject? {
        guard let definition = datastore.registry.definition(named: schema.name) else { return nil }
        return try await datastore.storage.read { try await $0.fetchObject(definition, id: id) }
    }
}
