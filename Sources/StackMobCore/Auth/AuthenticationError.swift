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

    public var message: String {
        switch self {
        case .missingCredentials: "Missing X-StackMob-API-Key header or OAuth signature"
        case .unknownAPIKey: "Invalid API key for this API version"
        case .unknownAccessToken: "Invalid or expired access token"
        case .unsupportedSignature: "OAuth 1.0 signatures are not supported by this server yet"
        }
    }
}
