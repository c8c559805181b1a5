import Foundation
import GRDB

/// Operator accounts, sessions and the audit log (tables of migration v007) in the production
/// database.
public struct OperatorStore: Sendable {
    let pool: DatabasePool
    let hasher: PasswordHasher
    let clock: any ServerClock
    /// How long a session lasts without signing in again.
    public static let sessionLifetimeMilliseconds: Int64 = 12 * 3600 * 1000

    public init(engine: SQLiteStorageEngine, hasher: PasswordHasher, clock: any ServerClock = SystemClock()) {
        pool = engine.pool
        self.hasher = hasher
        self.clock = clock
    }

    /// Operator names: the same rule as field names, so they are safe in logs and paths.
    public static func isValidName(_ name: String) -> Bool { Identifier.isValidFieldName(name) }

    public func add(name: String, password: String) async throws {
        guard Self.isValidName(name) else { throw AdminError.badInput(key: "name", "must be lower-case letters, digits and underscores") }
        guard password.count >= 8 else { throw AdminError.badInput(key: "password", "must be at least 8 characters long") }
        let hash = hasher.hash(password)
        let now = clock.nowMilliseconds()
        try await pool.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM _sm_operators WHERE name = ?)", arguments: [name]) != true else {
                throw AdminError.conflict("The operator '\(name)' already exists")
            }
            try db.execute(sql: "INSERT INTO _sm_operators (name, password_hash, created_at) VALUES (?, ?, ?)", arguments: [name, hash, now])
            try Self.append(db, at: now, operatorName: name, action: "operator.add", detail: ["name": .string(name)])
        }
    }

    public func hasOperators() async throws -> Bool {
        try await pool.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM _sm_operators)") ?? false }
    }

    /// A new session for valid credentials; nil otherwise.
    public func signIn(name: String, password: String) async throws -> OperatorSession? {
        let stored = try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT password_hash FROM _sm_operators WHERE name = ?", arguments: [name])
        }
        guard let stored else {
            // As slow as a wrong password, so the answer's timing does not tell which names exist.
            _ = hasher.hash(password)
            return nil
        }
        guard hasher.verify(password, against: stored) else { return nil }
        let token = SessionSecrets.generateToken() + SessionSecrets.generateToken()
        let csrf = SessionSecrets.generateToken()
        let now = clock.nowMilliseconds()
        let expires = now + Self.sessionLifetimeMilliseconds
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM _sm_operator_sessions WHERE expires_at <= ?", arguments: [now])
            try db.execute(
                sql: "INSERT INTO _sm_operator_sessions (token_hash, operator, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [SessionSecrets.hash(token), name, csrf, now, expires])
            try Self.append(db, at: now, operatorName: name, action: "operator.sign_in", detail: [:])
        }
        return OperatorSession(operatorName: name, token: token, csrfToken: csrf, expiresAt: expires)
    }

    public func session(token: String) async throws -> OperatorSession? {
        let now = clock.nowMilliseconds()
        return try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT operator, csrf_token, expires_at FROM _sm_operator_sessions WHERE token_hash = ? AND expires_at > ?",
                arguments: [SessionSecrets.hash(token), now]
            ).map { OperatorSession(operatorName: $0["operator"], token: nil, csrfToken: $0["csrf_token"], expiresAt: $0["expires_at"]) }
        }
    }

    public func signOut(token: String, operatorName: String) async throws {
        let now = clock.nowMilliseconds()
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM _sm_operator_sessions WHERE token_hash = ?", arguments: [SessionSecrets.hash(token)])
            try Self.append(db, at: now, operatorName: operatorName, action: "operator.sign_out", detail: [:])
        }
    }

    public func audit(_ operatorName: String, action: String, detail: JSONValue) async throws {
        let now = clock.nowMilliseconds()
        try await pool.write { db in try Self.append(db, at: now, operatorName: operatorName, action: action, detail: detail) }
    }

    /// The newest entries first.
    public func auditLog(limit: Int) async throws -> [AuditEntry] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM _sm_audit_log ORDER BY id DESC LIMIT ?", arguments: [limit]).map { row in
                AuditEntry(
                    id: row["id"], at: row["at"], operatorName: row["operator"], action: row["action"],
                    detail: (try? JSONParser.parse(row["detail"] as String)) ?? .null)
            }
        }
    }

    private static func append(_ db: Database, at: Int64, operatorName: String, action: String, detail: JSONValue) throws {
        try db.execute(
            sql: "INSERT INTO _sm_audit_log (at, operator, action, detail) VALUES (?, ?, ?, ?)",
            arguments: [at, operatorName, action, JSONWriter.string(detail)])
    }
}
