/// Who a request acts for, once its credentials are verified.
public enum Caller: Sendable, Equatable {
    /// The app's public key alone.
    case anonymous
    /// A logged-in user of a user schema (OAuth 2.0 MAC, PROTOCOL §3.2).
    case user(schema: String, id: String)
    /// A private-key (OAuth 1.0) signature: trusted, bypasses ACLs.
    case privateKey
    /// A private-key signature carrying the cookie of a legacy OAuth 1.0 login (§8.9): as
    /// trusted as `privateKey`, but objects it creates are owned by that user (the Java SDK's
    /// OAuth1 mode expects `sm_owner` to follow its login).
    case privateKeySession(schema: String, id: String)

    /// Whether the request is private-key signed (with or without a cookie session).
    public var isPrivateKey: Bool {
        switch self {
        case .privateKey, .privateKeySession: true
        case .anonymous, .user: false
        }
    }

    /// The user the request acts for: the MAC signer, or the user of a legacy cookie session
    /// (§8.9), whom the Java SDK in OAuth 1.0 mode considers logged in for `loggedInUser` and
    /// `resetPassword` too.
    public var sessionUser: (schema: String, id: String)? {
        switch self {
        case .user(let schema, let id), .privateKeySession(let schema, let id): (schema, id)
        case .anonymous, .privateKey: nil
        }
    }

    /// The `sm_owner` value for objects this caller creates (PROTOCOL D15).
    public var ownerReference: String? {
        if case .user(let schema, let id) = self { return "\(schema)/\(id)" }
        if case .privateKeySession(let schema, let id) = self { return "\(schema)/\(id)" }
        return nil
    }
}
