import Foundation
import GRDB
import StackMobCore

/// `TokenStore` on the environment's SQLite database (tables of migration v002).
public struct SQLiteTokenStore: TokenStore {
    let pool: SQLitePool

    public init(engine: SQLiteStorageEngine) {
        pool = engine.pool
    }

    public func insertSession(_ session: StoredSession, replacingOthers: Bool) async throws {
        try await pool.write { db in
            if replacingOthers {
                try db.execute(
                    sql: "DELETE FROM _sm_tokens WHERE user_schema = ? AND user_id = ?", arguments: [session.userSchema, session.userID])
            }
            try Self.insert(session, db)
        }
    }

    /// Every signed request looks its token up: a read by key, on the calling thread, with a
    /// statement each connection compiles once (compiling it cost more than running it).
    public func session(accessHash: String) async throws -> StoredSession? {
        try await pool.readByKey { db in
            let statement = try db.cachedStatement(sql: "SELECT * FROM _sm_tokens WHERE access_hash = ?")
            return try Row.fetchOne(statement, arguments: [accessHash]).map(Self.session)
        }
    }

    public func session(refreshHash: String) async throws -> StoredSession? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM _sm_tokens WHERE refresh_hash = ?", arguments: [refreshHash]).map(Self.session)
        }
    }

    public func rotateSession(refreshHash: String, to next: StoredSession) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM _sm_tokens WHERE refresh_hash = ?", arguments: [refreshHash])
            guard db.changesCount == 1 else { return false }
            try Self.insert(next, db)
            return true
        }
    }

    public func deleteSession(accessHash: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM _sm_tokens WHERE access_hash = ?", arguments: [accessHash])
        }
    }

    public func sweepExpired(now: Int64, refreshIssuedBefore: Int64) async throws -> Int {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM _sm_tokens WHERE expires_at <= ? AND created_at <= ?", arguments: [now, refreshIssuedBefore])
            var deleted = db.changesCount
            try db.execute(sql: "DELETE FROM _sm_cookie_sessions WHERE expires_at <= ?", arguments: [now])
            deleted += db.changesCount
            try db.execute(sql: "DELETE FROM _sm_temporary_passwords WHERE expires_at <= ?", arguments: [now])
            return deleted + db.changesCount
        }
    }

    public func deleteSessions(userSchema: String, userID: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM _sm_tokens WHERE user_schema = ? AND user_id = ?", arguments: [userSchema, userID])
        }
    }

    public func revokeSessions(userSchema: String, userID: String, keeping current: CurrentSession) async throws {
        try await pool.write { db in
            // `IS NOT ?` keeps nothing when the hash is NULL: every session goes.
            try db.execute(
                sql: "DELETE FROM _sm_tokens WHERE user_schema = ? AND user_id = ? AND access_hash IS NOT ?",
                arguments: [userSchema, userID, current.accessHash])
            try db.execute(
                sql: "DELETE FROM _sm_cookie_sessions WHERE user_schema = ? AND user_id = ? AND session_hash IS NOT ?",
                arguments: [userSchema, userID, current.cookieHash])
        }
    }

    public func setTemporaryPassword(userSchema: String, userID: String, hash: String, expiresAt: Int64) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO _sm_temporary_passwords (user_schema, user_id, password_hash, expires_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (user_schema, user_id) DO UPDATE SET password_hash = excluded.password_hash, expires_at = excluded.expires_at
                    """,
                arguments: [userSchema, userID, hash, expiresAt])
        }
    }

    public func temporaryPassword(userSchema: String, userID: String) async throws -> (hash: String, expiresAt: Int64)? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT password_hash, expires_at FROM _sm_temporary_passwords WHERE user_schema = ? AND user_id = ?",
                arguments: [userSchema, userID]
            ).map { (hash: $0["password_hash"], expiresAt: $0["expires_at"]) }
        }
    }

    public func deleteTemporaryPassword(userSchema: String, userID: String) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM _sm_temporary_passwords WHERE user_schema = ? AND user_id = ?", arguments: [userSchema, userID])
        }
    }

    public func markEmailField(userSchema: String, field: String) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO _sm_user_email_fields (user_schema, field) VALUES (?, ?)", arguments: [userSchema, field])
        }
    }

    public func markedEmailField(userSchema: String) async throws -> String? {
        try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT field FROM _sm_user_email_fields WHERE user_schema = ?", arguments: [userSchema])
        }
    }

    public func appendToOutbox(_ message: MailMessage, at time: Int64) async throws -> Int64 {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO _sm_mail_outbox (recipient, subject, body, created_at) VALUES (?, ?, ?, ?)",
                arguments: [message.to, message.subject, message.body, time])
            return db.lastInsertedRowID
        }
    }

    public func outbox() async throws -> [OutboxEntry] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM _sm_mail_outbox ORDER BY id").map { row in
                OutboxEntry(
                    id: row["id"], message: MailMessage(to: row["recipient"], subject: row["subject"], body: row["body"]),
                    createdAt: row["created_at"])
            }
        }
    }

    private static func insert(_ session: StoredSession, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO _sm_tokens (access_hash, refresh_hash, user_schema, user_id, sealed_mac_key, expires_at, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                session.accessHash, session.refreshHash, session.userSchema, session.userID, Data(session.sealedMACKey),
                session.expiresAt, session.createdAt,
            ])
    }

    private static func session(_ row: Row) -> StoredSession {
        StoredSession(
            accessHash: row["access_hash"], refreshHash: row["refresh_hash"], userSchema: row["user_schema"], userID: row["user_id"],
            sealedMACKey: Array((row["sealed_mac_key"] as Data?) ?? Data()), expiresAt: row["expires_at"], createdAt: row["created_at"])
    }
}
