/// Where operator accounts, their sessions and the audit log live (the production database):
/// the part of `OperatorStore` each storage engine implements.
public protocol OperatorStorage: Sendable {
    /// Adds an operator and audits it in one transaction; `AdminError.conflict` if the name exists.
    func insertOperator(name: String, passwordHash: String, audit: AuditRecord) async throws
    func hasOperators() async throws -> Bool
    func passwordHash(ofOperator name: String) async throws -> String?
    /// Stores a session, drops expired ones and audits the sign-in, in one transaction.
    func insertSession(tokenHash: String, operatorName: String, csrfToken: String, expiresAt: Int64, audit: AuditRecord) async throws
    /// The unexpired session with that token hash, as (operator, CSRF token, expiry).
    func session(tokenHash: String, now: Int64) async throws -> OperatorSession?
    /// Ends a session and audits the sign-out, in one transaction.
    func deleteSession(tokenHash: String, audit: AuditRecord) async throws
    func appendAudit(_ record: AuditRecord) async throws
    /// The newest entries first.
    func auditLog(limit: Int) async throws -> [AuditEntry]
}

/// One audit log entry to write.
public struct AuditRecord: Sendable {
    public let at: Int64
    public let operatorName: String
    public let action: String
    public let detail: JSONValue

    public init(at: Int64, operatorName: String, action: String, detail: JSONValue) {
        self.at = at
        self.operatorName = operatorName
        self.action = action
        self.detail = detail
    }
}
