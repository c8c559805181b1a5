extension UserAccounts {
    /// Verifies an OAuth 2.0 MAC signature (PROTOCOL §3.2, D7, D19) and returns the signer.
    public func verify(_ authorization: MACAuthorization, _ credentials: RequestCredentials) async throws(AuthenticationError) -> Caller {
        let found: StoredSession?
        do {
            found = try await store.session(accessHash: SessionSecrets.hash(authorization.id))
        } catch {
            throw .unknownAccessToken
        }
        guard let session = found, userSchema(named: session.userSchema) != nil,
            let macKey = macKeys.key(of: session, accessToken: authorization.id)
        else { throw .unknownAccessToken }
        let now = clock.nowMilliseconds()
        if session.expiresAt <= now {
            if settings.expiredTokenAsAnonymous { return .anonymous }
            throw .expiredAccessToken
        }
        let window = SignatureTimestampWindow(seconds: Int64(settings.macTimestampWindowSeconds))
        guard window.admits(authorization.timestamp, now: now) else { throw .staleTimestamp }
        guard matches(authorization, macKey: macKey, credentials) else { throw .badSignature }
        // Checked after the signature, so forged requests cannot fill the cache.
        let keepUntil = window.nonceExpiry(for: authorization.timestamp, now: now)
        // Fails closed: when the shared replay cache cannot answer, the request is refused.
        let fresh = (try? await nonces.record(
            token: session.accessHash, ts: authorization.timestamp, nonce: authorization.nonce, mac: authorization.mac, expiresAt: keepUntil,
            now: now)) ?? false
        guard fresh else { throw .replayedNonce }
        return .user(schema: session.userSchema, id: session.userID)
    }

    private func matches(_ authorization: MACAuthorization, macKey: String, _ credentials: RequestCredentials) -> Bool {
        guard
            let (host, ports) = MACCandidates.hostAndPorts(
                host: credentials.host, forwardedProto: credentials.forwardedProto, forwardedPort: credentials.forwardedPort)
        else { return false }
        var matched = false
        // Every candidate is computed and compared, so timing does not tell which form matched.
        for method in credentials.signableMethods {
            for uri in MACCandidates.requestURIs(target: credentials.target) {
                for port in ports {
                    let expected = MACSignature.mac(
                        key: macKey, ts: authorization.timestamp, nonce: authorization.nonce, method: method, requestURI: uri,
                        host: host, port: port)
                    if constantTimeEquals(expected, authorization.mac) { matched = true }
                }
            }
        }
        return matched
    }
}
