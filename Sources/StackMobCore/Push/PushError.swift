/// Why a push request was refused (PROTOCOL §11, §14, D12). Messages are safe to show a client.
public enum PushError: Error, Sendable, Equatable {
    /// A token type other than ios, android, androidgcm (any case).
    case unknownTokenType(String)
    /// A token that does not fit its type (an iOS token that is not 64 hex characters).
    case invalidToken(String)
    /// Registration with `overwrite: false` (or a gen-2 POST) of a token that is registered.
    case tokenAlreadyRegistered
    /// A body or parameter that does not have the documented shape.
    case malformedRequest(String)
    /// A payload over 1024 bytes, which no device type can carry (§11.3).
    case payloadTooLarge(bytes: Int)
    /// A bad value in the payload (e.g. a `badge` that is not an integer).
    case invalidPayload(String)
    /// Sending, broadcasting and listing need the private key (D12).
    case privateKeyRequired
    /// Public-key registration and removal are switched off for this environment.
    case publicRegistrationDisabled

    public var message: String {
        switch self {
        case .unknownTokenType(let type): "Unknown token type '\(type)': use ios, android or androidgcm"
        case .invalidToken(let reason): "Invalid token: \(reason)"
        case .tokenAlreadyRegistered: "Token already registered; register with overwrite to link it to another user"
        case .malformedRequest(let detail): "Malformed push request: \(detail)"
        case .payloadTooLarge(let bytes): "The payload is \(bytes) bytes; at most 1024 bytes (256 for iOS) can be delivered"
        case .invalidPayload(let detail): "Invalid payload: \(detail)"
        case .privateKeyRequired: "This push endpoint needs a request signed with the private key (OAuth 1.0)"
        case .publicRegistrationDisabled:
            "Registering and removing tokens with the public key alone is disabled in this environment: sign with the private key (OAuth 1.0)"
        }
    }
}
