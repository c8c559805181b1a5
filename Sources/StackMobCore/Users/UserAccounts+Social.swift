/// Social login (PROTOCOL §9): users proven by Facebook, Twitter or Gigya instead of a password.
///
/// Facebook and Twitter are asked through `gateway` (network I/O, never inside a transaction);
/// Gigya's signature is checked here. A user created here has no password, so only the
/// provider logs them in until they set one.
extension UserAccounts {
    /// Token logins (`facebookAccessToken`, `twitterAccessToken`, `gigyaAccessToken`, …): the
    /// §8.2 token response for the user linked to the account; with `create`, a new user named
    /// `username` (default: the provider's account id) is created and linked when none is.
    public func socialLogin(
        _ schema: UserSchema, _ credentials: SocialCredentials, create: Bool, username: String?, caller: Caller, gateway: any SocialGateway
    ) async throws -> TokenGrant {
        let identity = try await identify(credentials, gateway: gateway)
        let userID: String
        if let link = try await store.socialLink(identity.provider, userSchema: schema.name, accountID: identity.accountID) {
            userID = link.userID
            // The newest token is the one later info and post calls use.
            try await store.link(try makeLink(schema, credentials, identity, userID: userID), at: clock.nowMilliseconds())
        } else {
            guard create else { throw SocialError.noLinkedUser(identity.provider) }
            userID = try await createLinkedUser(schema, credentials, identity, username: username, fields: [:], caller: caller).id
        }
        return try await issue(schema, userID: userID)
    }

    /// The legacy cookie logins `facebookLogin` / `twitterlogin` (§8.9): the linked user and a
    /// cookie session.
    public func socialCookieLogin(_ schema: UserSchema, _ credentials: SocialCredentials, gateway: any SocialGateway) async throws -> (
        user: JSONObject, cookie: String
    ) {
        let identity = try await identify(credentials, gateway: gateway)
        guard let link = try await store.socialLink(identity.provider, userSchema: schema.name, accountID: identity.accountID) else {
            throw SocialError.noLinkedUser(identity.provider)
        }
        return try await openCookieSession(schema, userID: link.userID)
    }

    /// `createUserWithFacebook` / `createUserWithTwitter`: a new user linked to the account; the
    /// created object (201). `fields` are further attributes the JS SDK merges into the body.
    public func createSocialUser(
        _ schema: UserSchema, _ credentials: SocialCredentials, username: String?, fields: JSONObject, caller: Caller,
        gateway: any SocialGateway
    ) async throws -> JSONObject {
        let identity = try await identify(credentials, gateway: gateway)
        if try await store.socialLink(identity.provider, userSchema: schema.name, accountID: identity.accountID) != nil {
            throw SocialError.linkedToAnotherUser(identity.provider)
        }
        return try await createLinkedUser(schema, credentials, identity, username: username, fields: fields, caller: caller).object
    }

    /// `linkUserWith…`: links the account to the logged-in user (replacing their previous one of
    /// that provider); answers the user.
    public func linkSocialAccount(_ schema: UserSchema, _ credentials: SocialCredentials, caller: Caller, gateway: any SocialGateway)
        async throws -> JSONObject
    {
        guard case .user(schema.name, let userID) = caller else { throw SocialError.notLoggedIn }
        let identity = try await identify(credentials, gateway: gateway)
        try await store.link(try makeLink(schema, credentials, identity, userID: userID), at: clock.nowMilliseconds())
        return try await datastore.read(id: userID, in: schema.name, caller: .privateKey)
    }

    /// `unlinkUserFrom…`: 404 (`notLinked`) when the logged-in user has no such account.
    public func unlinkSocialAccount(_ schema: UserSchema, _ provider: SocialProvider, caller: Caller) async throws {
        guard case .user(schema.name, let userID) = caller else { throw SocialError.notLoggedIn }
        guard try await store.unlink(provider, userSchema: schema.name, userID: userID) else { throw SocialError.notLinked(provider) }
    }

    /// `getFacebookUserInfo` / `getTwitterUserInfo`: the provider's own JSON about the linked
    /// account, fetched with the token stored at login or link.
    public func socialUserInfo(_ schema: UserSchema, _ provider: SocialProvider, caller: Caller, gateway: any SocialGateway) async throws
        -> JSONObject
    {
        try await identify(storedCredentials(schema, provider, caller: caller), gateway: gateway).profile
    }

    /// `postFacebookMessage` / `twitterStatusUpdate`: posts for the logged-in user; answers the
    /// provider's JSON.
    public func socialPost(_ schema: UserSchema, _ provider: SocialProvider, message: String, caller: Caller, gateway: any SocialGateway)
        async throws -> JSONValue
    {
        let credentials = try await storedCredentials(schema, provider, caller: caller)
        let social = settings.social
        switch credentials {
        case .facebook(let token):
            guard let facebook = social.facebook else { throw SocialError.notConfigured(.facebook) }
            return try await gateway.facebookPost(message: message, accessToken: token, settings: facebook, timeoutSeconds: social.timeoutSeconds)
        case .twitter(let token, let secret):
            guard let twitter = social.twitter else { throw SocialError.notConfigured(.twitter) }
            return try await gateway.twitterUpdate(
                status: message, token: token, secret: secret, settings: twitter, timeoutSeconds: social.timeoutSeconds)
        case .gigya:
            throw SocialError.noLinkedAccount(provider)
        }
    }

    // MARK: - Helpers

    /// Who the credentials belong to: asked of Facebook or Twitter, checked locally for Gigya.
    func identify(_ credentials: SocialCredentials, gateway: any SocialGateway) async throws -> SocialIdentity {
        let social = settings.social
        switch credentials {
        case .facebook(let token):
            guard let facebook = social.facebook else { throw SocialError.notConfigured(.facebook) }
            return try await gateway.facebookUser(accessToken: token, settings: facebook, timeoutSeconds: social.timeoutSeconds)
        case .twitter(let token, let secret):
            guard let twitter = social.twitter else { throw SocialError.notConfigured(.twitter) }
            return try await gateway.twitterUser(token: token, secret: secret, settings: twitter, timeoutSeconds: social.timeoutSeconds)
        case .gigya(let uid, let timestamp, let signature):
            guard let gigya = social.gigya else { throw SocialError.notConfigured(.gigya) }
            return try GigyaSignature.verify(
                uid: uid, timestamp: timestamp, signature: signature, settings: gigya, nowMilliseconds: clock.nowMilliseconds())
        }
    }

    /// A cookie session for a user proven otherwise than by password (as `cookieLogin` opens one).
    private func openCookieSession(_ schema: UserSchema, userID: String) async throws -> (user: JSONObject, cookie: String) {
        let cookie = SessionSecrets.generateToken()
        try await store.insertCookieSession(
            hash: SessionSecrets.hash(cookie), userSchema: schema.name, userID: userID,
            expiresAt: clock.nowMilliseconds() + CookieSession.lifetimeMilliseconds)
        var user = try await datastore.read(id: userID, in: schema.name, caller: .privateKey)
        user[schema.loginField] = .string(userID)
        return (user, cookie)
    }

    private func storedCredentials(_ schema: UserSchema, _ provider: SocialProvider, caller: Caller) async throws -> SocialCredentials {
        guard case .user(schema.name, let userID) = caller else { throw SocialError.notLoggedIn }
        // Configuration is checked first, so an unconfigured provider says what to configure.
        switch provider {
        case .facebook where settings.social.facebook == nil, .twitter where settings.social.twitter == nil,
            .gigya where settings.social.gigya == nil:
            throw SocialError.notConfigured(provider)
        default: break
        }
        guard let link = try await store.socialLink(provider, userSchema: schema.name, userID: userID), let stored = link.token else {
            throw SocialError.noLinkedAccount(provider)
        }
        let secret: String? = link.tokenSecret.map { sealingKey.open($0) } ?? ""
        guard let token = sealingKey.open(stored), let secret else {
            // Sealed with another key (`seal.key` lost, or another instance's): the user logs in
            // through the provider again, which stores a token sealed with this one.
            logger.warning("A stored provider token does not open with this seal.key", metadata: ["sm.provider": "\(provider.rawValue)"])
            throw SocialError.noLinkedAccount(provider)
        }
        switch provider {
        case .facebook: return .facebook(accessToken: token)
        case .twitter: return .twitter(token: token, secret: secret)
        case .gigya: throw SocialError.noLinkedAccount(provider)
        }
    }

    /// The link to store: the provider's token and secret sealed (`SealingKey`), never in clear.
    private func makeLink(_ schema: UserSchema, _ credentials: SocialCredentials, _ identity: SocialIdentity, userID: String) throws
        -> SocialLink
    {
        var link = SocialLink(
            provider: identity.provider, userSchema: schema.name, accountID: identity.accountID, userID: userID, token: nil, tokenSecret: nil)
        switch credentials {
        case .facebook(let token): link.token = try sealingKey.seal(token)
        case .twitter(let token, let secret):
            link.token = try sealingKey.seal(token)
            link.tokenSecret = try sealingKey.seal(secret)
        case .gigya: break
        }
        return link
    }

    /// Creates the user (the schema's create permission applies to `caller`), then links it; if
    /// the link fails (another request linked the account meanwhile) the new user is removed.
    private func createLinkedUser(
        _ schema: UserSchema, _ credentials: SocialCredentials, _ identity: SocialIdentity, username: String?, fields: JSONObject,
        caller: Caller
    ) async throws -> (id: String, object: JSONObject) {
        let id = username.flatMap { $0.isEmpty ? nil : $0 } ?? identity.accountID
        var body = fields
        body[schema.loginField] = .string(id)
        let created = try await datastore.create(body, in: schema.name, caller: caller)
        do {
            try await store.link(try makeLink(schema, credentials, identity, userID: id), at: clock.nowMilliseconds())
        } catch {
            try? await datastore.delete(id: id, in: schema.name, caller: .privateKey)
            throw error
        }
        return (id, created.object)
    }
}
