import Foundation
import GRDB
import StackMobCore

/// Operator accounts, sessions and the audit log (tables of migration v008) in the production
/// SQLite database.
public struct SQLiteOperatorStorage: OperatorStorage {
    let pool: SQLitePool

    public init(engine: SQLiteStorageEngine) {
        pool = engine.pool
    }

    public func insertOperator(name: String, passwordHash: String, audit: AuditRecord) async throws {
        try await pool.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM _sm_operators WHERE name = ?)", arguments: [name]) != true else {
                throw AdminError.conflict("The operator '\(name)' already exists")
            }
            try db.execute(
                sql: "INSERT INTO _sm_operators (name, password_hash, created_at) VALUES (?, ?, ?)", arguments: [name, passwordHash, audit.at])
            try Self.append(audit, to: db)
        }
    }

    public func hasOperators() async throws -> Bool {
        try await pool.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM _sm_operators)") ?? false }
    }

    public func passwordHash(ofOperator name: String) async throws -> String? {
        try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT password_hash FROM _sm_operators WHERE name = ?", arguments: [name])
        }
    }

    public func insertSession(tokenHash: String, operatorName: String, csrfToken: String, expiresAt: Int64, audit: AuditRecord) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM _sm_operator_sessions WHERE expires_at <= ?", arguments: [audit.at])
            try db.execute(
                sql: "INSERT INTO _sm_operator_sessions (token_hash, operator, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [tokenHash, operatorName, csrfToken, audit.at, expiresAt])
            try Self.append(audit, to: db)
        }
    }

    public func session(tokenHash: String, now: Int64) async throws -> OperatorSession? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT operator, csrf_token, expires_at FROM _sm_operator_sessions WHERE token_hash = ? AND expires_at > ?",
                arguments: [tokenHash, now]
            ).map { OperatorSession(operatorName: $0["operator"], token: nil, csrfToken: $0["csrf_token"], expiresAt: $0["expires_at"]) }
        }
    }

    public func deleteSession(tokenHash: String, audit: AuditRecord) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM _sm_operator_sessions WHERE token_hash = ?", arguments: [tokenHash])
            try Self.append(audit, to: db)
        }
    }

    public func appendAudit(_ record: AuditRecord) async throws {
        try await pool.write { db in try Self.append(record, to: db) }
    }

    public func auditLog(limit: Int) async throws -> [AuditEntry] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM _sm_audit_log ORDER BY id DESC LIMIT ?", arguments: [limit]).map { row in
                AuditEntry(
                    id: row["id"], at: row["at"], operatorName: row["operator"], action: row["action"],
                    detail: (try? JSONParser.parse(row["detail"] as String)) ?? .null)
            }
        }
    }

    private static func append(_ record: AuditRecord, to db: Database) throws {
        try db.execute(
            sql: "INSERT INTO _sm_audit_log (at, operator, action, detail) VALUES (?, ?, ?, ?)",
            arguments: [record.at, record.operatorName, record.action, JSONWriter.string(record.detail)])
    }
}
