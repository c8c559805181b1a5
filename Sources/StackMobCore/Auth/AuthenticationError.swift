/// Why a request's credentials were refused (PROTOCOL §1.2, §3); every case is a 401.
public enum AuthenticationError: Error, Sendable, Equatable {
    /// Neither an `X-StackMob-API-Key` header nor a signature.
    case missingCredentials
    /// An API key that is not the public key of the environment the `Accept` version selects.
    case unknownAPIKey
    /// `Authorization: MAC …` naming an access token the server does not know.
    case unknownAccessToken
    /// `Authorization: OAuth …`: private-key signatures are not verified yet.
    case unsupportedSignature
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
        case .unsupportedSignature: "OAuth 1.0 signatures are not supported by this server yet"
        case .malformedAuthorization: "Malformed Authorization header: expected MAC id=\"…\",ts=\"…\",nonce=\"…\",mac=\"…\""
        case .expiredAccessToken: "The access token has expired: refresh it or log in again"
        case .staleTimestamp: "The MAC timestamp is too far from the server's clock"
        case .replayedNonce: "This signed request was already received (replayed nonce)"
        case .badSignature: "The MAC signature does not match the request"
        }
    }
}
