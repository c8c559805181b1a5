/// Who a request acts for, once its credentials are verified.
public enum Caller: Sendable, Equatable {
    /// The app's public key alone.
    case anonymous
    /// A logged-in user of a user schema (OAuth 2.0 MAC; the users issue).
    case user(schema: String, id: String)
    /// A private-key (OAuth 1.0) signature: trusted, bypasses ACLs.
    case privateKey

    /// The `sm_owner` value for objects this caller creates (PROTOCOL D15).
    public var ownerReference: String? {
        if case .user(let schema, let id) = self { return "\(schema)/\(id)" }
        return nil
    }
}
