extension UserAccounts {
    /// Verifies an OAuth 2.0 MAC signature (PROTOCOL §3.2, D7, D19) and returns the signer.
    public func verify(_ authorization: MACAuthorization, _ credentials: RequestCredentials) async throws(AuthenticationError) -> Caller {
        let accessHash = SessionSecrets.hash(authorization.id)
        let now = clock.nowMilliseconds()
        let window = SignatureTimestampWindow(seconds: Int64(settings.macTimestampWindowSeconds))
        let request = SeenRequest(
            token: accessHash, ts: authorization.timestamp, nonce: authorization.nonce, mac: authorization.mac,
            expiresAt: window.nonceExpiry(for: authorization.timestamp, now: now), now: now)
        let found: StoredSession?
        // Whether the request was fresh, where the storage recorded it with the lookup; nil until
        // it is recorded below.
        let recordedFresh: Bool?
        do {
            let recordable = window.admits(authorization.timestamp, now: now) && Self.isRecordableUnverified(authorization)
            (found, recordedFresh) = try await session(accessHash: accessHash, recording: recordable ? request : nil)
        } catch {
            throw .unknownAccessToken
        }
        guard let session = found, userSchema(named: session.userSchema) != nil,
            let macKey = macKeys.key(of: session, accessToken: authorization.id)
        else { throw .unknownAccessToken }
        if session.expiresAt <= now {
            if settings.expiredTokenAsAnonymous { return .anonymous }
            throw .expiredAccessToken
        }
        guard window.admits(authorization.timestamp, now: now) else { throw .staleTimestamp }
        guard matches(authorization, macKey: macKey, credentials) else { throw .badSignature }
        // Recorded here, after the signature, unless the lookup recorded it: the in-memory cache
        // evicts when full, so forged requests must not fill it (`SignedSessionStore` says why
        // the database may record first). Fails closed: when the shared replay record cannot
        // answer, the request is refused.
        let fresh = if let recordedFresh { recordedFresh } else { (try? await nonces.record(request)) ?? false }
        guard fresh else { throw .replayedNonce }
        return .user(schema: session.userSchema, id: session.userID)
    }

    /// The session holding `accessHash`, with `request` recorded in the same round trip where the
    /// storage can (`SignedSessionStore`) and `request` is given; `fresh` is nil when it was not.
    private func session(accessHash: String, recording request: SeenRequest?) async throws -> (StoredSession?, fresh: Bool?) {
        guard let signedSessions, let request else { return (try await store.session(accessHash: accessHash), nil) }
        do {
            guard let lookup = try await signedSessions.session(accessHash: accessHash, recording: request) else { return (nil, nil) }
            return (lookup.session, lookup.fresh)
        } catch {
            // The record may be what failed (a full disk, a database turned read-only): the
            // lookup alone, and the record after the signature, as on other engines.
            logger.warning("Recording a signed request with its session failed; recording it apart", metadata: ["sm.error": "\(error)"])
            return (try await store.session(accessHash: accessHash), nil)
        }
    }

    /// The longest nonce and mac recorded before the signature is checked. The SDKs send a mac of
    /// 28 characters (HMAC-SHA1 in base64) and a nonce of at most 6; a longer one is recorded only
    /// once it proved genuine, so that a forger cannot make the database write large rows.
    static let longestUnverifiedPart = 64

    static func isRecordableUnverified(_ authorization: MACAuthorization) -> Bool {
        authorization.nonce.utf8.count <= longestUnverifiedPart && authorization.mac.utf8.count <= longestUnverifiedPart
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
