/// A signed-in operator. `token` is only known at sign-in (the store keeps its hash).
public struct OperatorSession: Sendable, Equatable {
    public let operatorName: String
    public let token: String?
    public let csrfToken: String
    public let expiresAt: Int64

    public init(operatorName: String, token: String?, csrfToken: String, expiresAt: Int64) {
        self.operatorName = operatorName
        self.token = token
        self.csrfToken = csrfToken
        self.expiresAt = expiresAt
    }
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

    public init(id: Int64, at: Int64, operatorName: String, action: String, detail: JSONValue) {
        self.id = id
        self.at = at
        self.operatorName = operatorName
        self.action = action
        self.detail = detail
    }

    public var json: JSONValue {
        ["id": .integer(id), "at": .integer(at), "operator": .string(operatorName), "action": .string(action), "detail": detail]
    }
}
