/// Why a request's credentials were refused (PROTOCOL §1.2, §3); every case is a 401.
public enum AuthenticationError: Error, Sendable, Equatable {
    /// Neither an `X-StackMob-API-Key` header nor a signature.
    case missingCredentials
    /// An API key that is not the public key of the environment the `Accept` version selects.
    case unknownAPIKey
    /// `Authorization: MAC …` naming an access token the server does not know.
    case unknownAccessToken
    /// `Authorization: OAuth …` that does not parse, or lacks the consumer key, nonce or timestamp.
    case malformedOAuthAuthorization
    /// OAuth 1.0 with a signature method other than HMAC-SHA1, or a version other than 1.0.
    case unsupportedOAuthSignatureMethod
    /// An OAuth 1.0 consumer key that is not the public key of the `Accept` version's environment.
    case unknownConsumerKey
    /// The `oauth_timestamp` is outside the configured window.
    case staleOAuthTimestamp
    /// The same (consumer key, timestamp, nonce) was seen before.
    case replayedOAuthNonce
    /// No candidate base URL and parameter form gives this OAuth 1.0 signature.
    case badOAuthSignature
    /// A good OAuth 1.0 signature over an `oauth_body_hash` that is not the SHA-1 of the body
    /// received: the body was changed after it was signed.
    case badOAuthBodyHash
    /// An `Authorization: MAC` header that does not parse.
    case malformedAuthorization
    case expiredAccessToken
    /// The MAC `ts` is outside the configured window.
    case staleTimestamp
    /// The same (token, ts, nonce, mac) was seen before.
    case replayedNonce
    /// No candidate request-uri, host and port gives this MAC.
    case badSignature

    public var message: String {
        switch self {
        case .missingCredentials: "Missing X-StackMob-API-Key header or OAuth signature"
        case .unknownAPIKey: "Invalid API key for this API version"
        case .unknownAccessToken: "Invalid or expired access token"
        case .malformedOAuthAuthorization:
            "Malformed Authorization header: expected OAuth oauth_consumer_key=\"…\",oauth_nonce=\"…\",oauth_timestamp=\"…\",oauth_signature=\"…\""
        case .unsupportedOAuthSignatureMethod: "Unsupported OAuth signature: only oauth_signature_method HMAC-SHA1 with oauth_version 1.0 is accepted"
        case .unknownConsumerKey: "Invalid OAuth consumer key for this API version"
        case .staleOAuthTimestamp: "The oauth_timestamp is too far from the server's clock"
        case .replayedOAuthNonce: "This OAuth-signed request was already received (replayed nonce)"
        case .badOAuthSignature: "The OAuth signature does not match the request"
        case .badOAuthBodyHash: "The oauth_body_hash does not match the request body"
        case .malformedAuthorization: "Malformed Authorization header: expected MAC id=\"…\",ts=\"…\",nonce=\"…\",mac=\"…\""
        case .expiredAccessToken: "The access token has expired: refresh it or log in again"
        case .staleTimestamp: "The MAC timestamp is too far from the server's clock"
        case .replayedNonce: "This signed request was already received (replayed nonce)"
        case .badSignature: "The MAC signature does not match the request"
        }
    }
}
