import Foundation

extension UserAccounts {
    /// Verifies a two-legged OAuth 1.0 HMAC-SHA1 signature made with this environment's key
    /// pair (PROTOCOL §3.3, D13): consumer key = public key, secret = private key.
    ///
    /// Failures name what was wrong, never the expected signature or a key.
    public func verifyOAuth1(_ header: String, _ credentials: RequestCredentials, keys: AppKeys) async throws(AuthenticationError) -> Caller {
        guard let authorization = OAuth1Authorization.parse(header), let consumerKey = authorization.consumerKey,
            let nonce = authorization.nonce, !nonce.isEmpty, let timestamp = authorization.timestamp
        else { throw .malformedOAuthAuthorization }
        guard authorization.signatureMethod?.uppercased() == "HMAC-SHA1" else { throw .unsupportedOAuthSignatureMethod }
        if let version = authorization.version, version != "1.0" { throw .unsupportedOAuthSignatureMethod }
        guard constantTimeEquals(consumerKey, keys.publicKey) else { throw .unknownConsumerKey }
        let now = clock.nowMilliseconds()
        let window = SignatureTimestampWindow(seconds: Int64(settings.oauth1TimestampWindowSeconds))
        guard window.admits(timestamp, now: now) else { throw .staleOAuthTimestamp }
        guard OAuth1Verification.matches(authorization, secret: keys.privateKey, credentials) else { throw .badOAuthSignature }
        guard OAuth1Verification.bodyMatches(authorization, credentials) else { throw .badOAuthBodyHash }
        // Recorded only once the signature is good, so forged requests cannot fill the cache.
        let keepUntil = window.nonceExpiry(for: timestamp, now: now)
        // Fails closed: when the shared replay cache cannot answer, the request is refused.
        let request = SeenRequest(token: "oauth1\n\(consumerKey)", ts: timestamp, nonce: nonce, mac: "", expiresAt: keepUntil, now: now)
        let fresh = (try? await nonces.record(request)) ?? false
        guard fresh else { throw .replayedOAuthNonce }
        return .privateKey
    }
}

/// The signature comparison of `verifyOAuth1`, apart so that unit tests can drive it.
public enum OAuth1Verification {
    public static func matches(_ authorization: OAuth1Authorization, secret: String, _ credentials: RequestCredentials) -> Bool {
        let baseURLs = OAuth1Candidates.baseURLs(
            path: credentials.path, host: credentials.host, forwardedProto: credentials.forwardedProto, forwardedPort: credentials.forwardedPort)
        let parameterStrings = OAuth1Candidates.normalizedParameters(oauth: authorization.parameters, rawQuery: credentials.rawQuery)
        var matched = false
        // Every candidate is computed and compared, so timing does not tell which form matched.
        for method in credentials.signableMethods {
            for baseURL in baseURLs {
                for parameters in parameterStrings {
                    let base = OAuth1Signature.baseString(method: method, baseURL: baseURL, normalizedParameters: parameters)
                    if constantTimeEquals(OAuth1Signature.sign(baseString: base, consumerSecret: secret), authorization.signature) { matched = true }
                }
            }
        }
        return matched
    }

    /// Whether the body is the one signed. The OAuth Request Body Hash extension (oauth-bodyhash
    /// 1.0) signs a body as the `oauth_body_hash` parameter, base64 of the SHA-1 of the raw body
    /// (of nothing when there is none), which enters the base string like any `oauth_*`
    /// parameter; the stackmob-ruby gem sends it. The SDKs of PROTOCOL §3.3 sign no body and send
    /// no `oauth_body_hash`: without it, the body is not checked.
    public static func bodyMatches(_ authorization: OAuth1Authorization, _ credentials: RequestCredentials) -> Bool {
        guard let claimed = authorization.value("oauth_body_hash") else { return true }
        guard let digest = credentials.bodySHA1, let decoded = Data(base64Encoded: claimed) else { return false }
        return Array(decoded) == digest
    }
}
