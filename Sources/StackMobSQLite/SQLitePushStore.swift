import Foundation
import GRDB
import StackMobCore

/// The push registry of one environment in its SQLite database (tables of migration v005):
/// tokens with their user links, the expired list, and the delivery outbox
/// (`SQLitePushStore+Outbox`).
public struct SQLitePushStore: PushStore {
    let pool: SQLitePool

    public init(engine: SQLiteStorageEngine) {
        pool = engine.pool
    }

    public func register(_ token: PushToken, user: String?, overwrite: Bool, at now: Int64) async throws {
        try await pool.write { db in
            let exists = try Bool.fetchOne(
                db, sql: "SELECT 1 FROM _sm_push_tokens WHERE type = ? AND token = ?", arguments: [token.type.rawValue, token.token]) ?? false
            if exists && !overwrite { throw PushError.tokenAlreadyRegistered }
            try db.execute(
                sql: """
                    INSERT INTO _sm_push_tokens (type, token, user_id, registered_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (type, token) DO UPDATE SET user_id = excluded.user_id, registered_at = excluded.registered_at
                    """,
                arguments: [token.type.rawValue, token.token, user, now])
            // A token registered again is alive: it leaves the expired list.
            try db.execute(sql: "DELETE FROM _sm_push_expired WHERE type = ? AND token = ?", arguments: [token.type.rawValue, token.token])
        }
    }

    public func remove(_ token: PushToken) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM _sm_push_tokens WHERE type = ? AND token = ?", arguments: [token.type.rawValue, token.token])
            return db.changesCount > 0
        }
    }

    public func tokens(forUsers users: [String]) async throws -> [RegisteredToken] {
        let list = JSONWriter.string(.array(users.map(JSONValue.string)))
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT type, token, user_id, registered_at FROM _sm_push_tokens
                    WHERE user_id IN (SELECT value FROM json_each(?)) ORDER BY registered_at, type, token
                    """,
                arguments: [list]
            ).compactMap(Self.registeredToken)
        }
    }

    public func allTokens() async throws -> [RegisteredToken] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT type, token, user_id, registered_at FROM _sm_push_tokens ORDER BY type, token")
                .compactMap(Self.registeredToken)
        }
    }

    public func expiredTokens(clear: Bool) async throws -> [RegisteredToken] {
        try await pool.write { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT type, token, user_id, registered_at FROM _sm_push_expired ORDER BY expired_at, type, token")
            if clear { try db.execute(sql: "DELETE FROM _sm_push_expired") }
            return rows.compactMap(Self.registeredToken)
        }
    }

    static func registeredToken(_ row: Row) -> RegisteredToken? {
        RegisteredToken(type: row["type"], token: row["token"], user: row["user_id"], registeredMilliseconds: row["registered_at"])
    }
}
