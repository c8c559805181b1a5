/// What a permission level means for one caller and one verb, before any object is looked at.
public enum AccessDecision: Sendable, Equatable {
    /// Every object of the schema.
    case allow
    /// Only the objects a row rule admits (owner and relationship levels): the rule becomes part
    /// of the SQL of the read, update or delete, so hidden objects are never loaded.
    case allowRows(RowRule)
    /// Allowed when the caller is a member of the role (one lookup in `aclrole`), else 401.
    case allowIfMember(role: String)
    case deny(AccessError)

    /// The row-restricting levels, still to be resolved against the schema and the caller.
    public enum RowRule: Sendable, Equatable {
        case owner
        case objectRelation(String)
        case ownerRelation(String)
    }

    /// The decision of `level` for `verb` by `caller` (§12.2, D13).
    public static func of(_ level: PermissionLevel, verb: AccessVerb, caller: Caller) -> AccessDecision {
        if caller.isPrivateKey { return .allow }
        let loggedIn: Bool
        switch caller {
        case .user: loggedIn = true
        case .anonymous, .privateKey, .privateKeySession: loggedIn = false
        }
        switch level {
        case .open:
            return .allow
        case .privateKey:
            return .deny(.insufficientAuthorization)
        case .notAllowed:
            return .deny(.methodNotAllowed)
        case .loggedIn:
            return loggedIn ? .allow : .deny(.insufficientAuthorization)
        case .role(let name):
            return loggedIn ? .allowIfMember(role: name) : .deny(.insufficientAuthorization)
        case .owner, .objectRelation, .ownerRelation:
            guard loggedIn else { return .deny(.insufficientAuthorization) }
            // Only "logged in" can be checked for a create: the creator becomes the owner (§12.1).
            guard verb != .create else { return .allow }
            switch level {
            case .objectRelation(let field): return .allowRows(.objectRelation(field))
            case .ownerRelation(let field): return .allowRows(.ownerRelation(field))
            default: return .allowRows(.owner)
            }
        }
    }
}
