/// Failures of social login (PROTOCOL §9, §14). Every message is safe to show a client: none
/// carries a token, a secret or a provider's raw answer.
public enum SocialError: Error, Sendable, Equatable {
    /// No `environments.<env>.social.<provider>` section: 501.
    case notConfigured(SocialProvider)
    /// A request parameter is missing: 400.
    case missingParameter(String)
    /// The provider refused the credentials (expired, revoked, forged): 400.
    case rejected(SocialProvider)
    /// A Facebook token issued to another app: 400.
    case issuedToAnotherApp
    /// A Gigya timestamp outside the window: 400.
    case staleTimestamp
    /// The provider could not be reached: 502.
    case unreachable(SocialProvider)
    /// The provider answered with something that is not an answer (5xx, not JSON): 502.
    case providerFailed(SocialProvider)
    /// The provider did not answer in time: 504.
    case timedOut(SocialProvider, seconds: Int)
    /// A token login for an account no user is linked to: 400.
    case noLinkedUser(SocialProvider)
    /// The account is already linked to another user of the schema: 400.
    case linkedToAnotherUser(SocialProvider)
    /// Unlink of a user who has no such link: 404.
    case notLinked(SocialProvider)
    /// User info or a post for a user without a linked account: 400.
    case noLinkedAccount(SocialProvider)
    /// Link, unlink, info and post act for the logged-in user: 401.
    case notLoggedIn

    public var message: String {
        switch self {
        case .notConfigured(let provider):
            "\(provider.displayName) login is not configured: set environments.<environment>.social.\(provider.rawValue) "
                + "(\(Self.requiredKeys(provider))) in the server configuration"
        case .missingParameter(let name): "The parameter '\(name)' is required"
        case .rejected(let provider): "\(provider.displayName) rejected the credentials"
        case .issuedToAnotherApp: "The Facebook access token was issued to another app"
        case .staleTimestamp: "gigya_ts is too far from the server's time"
        case .unreachable(let provider): "\(provider.displayName) could not be reached"
        case .providerFailed(let provider): "\(provider.displayName) answered with an error"
        case .timedOut(let provider, let seconds): "\(provider.displayName) did not answer within \(seconds) seconds"
        case .noLinkedUser(let provider): "No user is linked to this \(provider.displayName) account"
        case .linkedToAnotherUser(let provider): "This \(provider.displayName) account is already linked to another user"
        case .notLinked(let provider): "The user is not linked to a \(provider.displayName) account"
        case .noLinkedAccount(let provider): "The user is not linked to a \(provider.displayName) account"
        case .notLoggedIn: "Not logged in: sign the request with a valid access token"
        }
    }

    private static func requiredKeys(_ provider: SocialProvider) -> String {
        switch provider {
        case .facebook: "app_id, app_secret"
        case .twitter: "consumer_key, consumer_secret"
        case .gigya: "secret"
        }
    }
}
