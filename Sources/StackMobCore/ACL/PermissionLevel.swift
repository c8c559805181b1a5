/// Who may perform one verb on one schema (PROTOCOL §12.1). The private key passes every level (D13).
public enum PermissionLevel: Sendable, Equatable {
    /// The public key suffices.
    case open
    /// Any MAC-authenticated user.
    case loggedIn
    /// The user whose `"<userSchema>/<id>"` is the object's `sm_owner`.
    case owner
    /// Members of the named role (`aclrole`, D14).
    case role(String)
    /// Users whose id is in the named relationship field of the object (e.g. `collaborators`).
    case objectRelation(String)
    /// Users whose id is in the named relationship field of the owner's user object (e.g. `friends`).
    case ownerRelation(String)
    /// Only private-key (OAuth 1.0) signed requests.
    case privateKey
    /// No REST access at all, except with the private key.
    case notAllowed

    /// The configuration spelling: `open`, `logged_in`, `owner`, `role:<name>`,
    /// `relation:<field>`, `owner_relation:<field>`, `private_key`, `not_allowed`. Nil for
    /// anything else, including an invalid role or field name.
    public init?(configuration text: String) {
        switch text {
        case "open": self = .open
        case "logged_in": self = .loggedIn
        case "owner": self = .owner
        case "private_key": self = .privateKey
        case "not_allowed": self = .notAllowed
        default:
            guard let colon = text.firstIndex(of: ":") else { return nil }
            let kind = text[..<colon]
            let name = String(text[text.index(after: colon)...])
            guard Identifier.isValidFieldName(name) else { return nil }
            switch kind {
            case "role": self = .role(name)
            case "relation": self = .objectRelation(name)
            case "owner_relation": self = .ownerRelation(name)
            default: return nil
            }
        }
    }

    /// The configuration spelling (inverse of `init(configuration:)`).
    public var configurationText: String {
        switch self {
        case .open: "open"
        case .loggedIn: "logged_in"
        case .owner: "owner"
        case .role(let name): "role:\(name)"
        case .objectRelation(let field): "relation:\(field)"
        case .ownerRelation(let field): "owner_relation:\(field)"
        case .privateKey: "private_key"
        case .notAllowed: "not_allowed"
        }
    }
}
