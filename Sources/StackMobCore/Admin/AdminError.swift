/// Refusals of the admin API (docs/operations.md, "Admin API"). Messages are safe to show: they
/// never carry a password, a token or a stored value.
public enum AdminError: Error, Sendable, Equatable {
    /// No operator account exists: the admin API answers nothing else.
    case closed
    /// No valid session cookie or bearer token.
    case notSignedIn
    case badCredentials
    /// A cookie-authenticated write without the session's `X-CSRF-Token`.
    case csrfMismatch
    case tooManyAttempts(retryAfterSeconds: Int)
    /// Bad input: names the key.
    case badInput(key: String, String)
    case notFound(String)
    case conflict(String)

    public var message: String {
        switch self {
        case .closed: "The admin API is closed: no operator account exists (create one with: stackmob-server admin add <name>)"
        case .notSignedIn: "Sign in first (POST /_admin/session), then send the session cookie or Authorization: Bearer <token>"
        case .badCredentials: "Invalid operator name or password"
        case .csrfMismatch: "A write with the session cookie needs the session's X-CSRF-Token header"
        case .tooManyAttempts(let seconds): "Too many failed sign-ins; try again in \(seconds) seconds"
        case .badInput(let key, let problem): "\(key): \(problem)"
        case .notFound(let what): "\(what) does not exist"
        case .conflict(let reason): reason
        }
    }
}
