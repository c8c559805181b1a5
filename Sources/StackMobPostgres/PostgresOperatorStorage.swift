import PostgresNIO
import StackMobCore

/// Operator accounts, sessions and the audit log in the production environment's schema.
public struct PostgresOperatorStorage: OperatorStorage {
    let database: PostgresPool

    @discardableResult
    private func run(_ sql: String, _ values: [StoredValue], on connection: PostgresConnection? = nil) async throws -> [PostgresRow] {
        try await database.run(sql, values, on: connection)
    }

    public func insertOperator(name: String, passwordHash: String, audit: AuditRecord) async throws {
        try await database.writeTransaction { connection in
            let inserted = try await run(
                "INSERT INTO _sm_operators (name, password_hash, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1",
                [.text(name), .text(passwordHash), .integer(audit.at)], on: connection)
            guard !inserted.isEmpty else { throw AdminError.conflict("The operator '\(name)' already exists") }
            try await append(audit, on: connection)
        }
    }

    public func hasOperators() async throws -> Bool {
        try await !run("SELECT 1 FROM _sm_operators LIMIT 1", []).isEmpty
    }

    public func passwordHash(ofOperator name: String) async throws -> String? {
        try await run("SELECT password_hash FROM _sm_operators WHERE name = $1", [.text(name)]).first?.decode(String.self)
    }

    public func insertSession(tokenHash: String, operatorName: String, csrfToken: String, expiresAt: Int64, audit: AuditRecord) async throws {
        try await database.writeTransaction { connection in
            try await run("DELETE FROM _sm_operator_sessions WHERE expires_at <= $1", [.integer(audit.at)], on: connection)
            try await run(
                "INSERT INTO _sm_operator_sessions (token_hash, operator, csrf_token, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
                [.text(tokenHash), .text(operatorName), .text(csrfToken), .integer(audit.at), .integer(expiresAt)], on: connection)
            try await append(audit, on: connection)
        }
    }

    public func session(tokenHash: String, now: Int64) async throws -> OperatorSession? {
        try await run(
            "SELECT operator, csrf_token, expires_at FROM _sm_operator_sessions WHERE token_hash = $1 AND expires_at > $2",
            [.text(tokenHash), .integer(now)]
        ).first.map { row in
            let (name, csrf, expires) = try row.decode((String, String, Int64).self)
            return OperatorSession(operatorName: name, token: nil, csrfToken: csrf, expiresAt: expires)
        }
    }

    public func deleteSession(tokenHash: String, audit: AuditRecord) async throws {
        try await database.writeTransaction { connection in
            try await run("DELETE FROM _sm_operator_sessions WHERE token_hash = $1", [.text(tokenHash)], on: connection)
            try await append(audit, on: connection)
        }
    }

    public func appendAudit(_ record: AuditRecord) async throws {
        try await database.writeTransaction { connection in try await append(record, on: connection) }
    }

    public func auditLog(limit: Int) async throws -> [AuditEntry] {
        try await run("SELECT id, at, operator, action, detail FROM _sm_audit_log ORDER BY id DESC LIMIT $1", [.integer(Int64(limit))]).map { row in
            let (id, at, name, action, detail) = try row.decode((Int64, Int64, String, String, String).self)
            return AuditEntry(id: id, at: at, operatorName: name, action: action, detail: (try? JSONParser.parse(detail)) ?? .null)
        }
    }

    private func append(_ record: AuditRecord, on connection: PostgresConnection) async throws {
        try await run(
            "INSERT INTO _sm_audit_log (at, operator, action, detail) VALUES ($1, $2, $3, $4)",
            [.integer(record.at), .text(record.operatorName), .text(record.action), .text(JSONWriter.string(record.detail))], on: connection)
    }
}
