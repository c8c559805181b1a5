/// A signed-in operator. `token` is only known at sign-in (the store keeps its hash).
public struct OperatorSession: Sendable, Equatable {
    public let operatorName: String
    public let token: String?
    public let csrfToken: String
    public let expiresAt: Int64
}

/// One line of the audit log: who changed what, when.
public struct AuditEntry: Sendable, Equatable {
    public let id: Int64
    /// Milliseconds since the epoch.
    public let at: Int64
    public let operatorName: String
    /// e.g. `schemas.deploy`, `operator.sign_in`.
    public let action: String
    /// What was changed, never a secret.
    public let detail: JSONValue

    public var json: JSONValue {
        ["id": .integer(id), "at": .integer(at), "operator": .string(operatorName), "action": .string(action), "detail": detail]
    }
}
