import Foundation
import GRDB

/// The push token registry of one environment (PROTOCOL §11.1), in the environment's SQLite
/// database (tables of migration v005): tokens with their user links, the expired list, and the
/// delivery outbox (`TokenRegistry+Outbox`).
public struct TokenRegistry: Sendable {
    let pool: DatabasePool
    let clock: any ServerClock

    public init(engine: SQLiteStorageEngine, clock: any ServerClock) {
        pool = engine.pool
        self.clock = clock
    }

    /// Registers a token, linked to `user` (or to nobody). An existing token is re-linked only
    /// with `overwrite`; otherwise it is a conflict (§11.2).
    public func register(_ token: PushToken, user: String?, overwrite: Bool) async throws {
        let now = clock.nowMilliseconds()
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

    /// Removes a token; false when it was not registered.
    @discardableResult
    public func remove(_ token: PushToken) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM _sm_push_tokens WHERE type = ? AND token = ?", arguments: [token.type.rawValue, token.token])
            return db.changesCount > 0
        }
    }

    /// The tokens linked to any of `users`, oldest registration first.
    public func tokens(forUsers users: [String]) async throws -> [RegisteredToken] {
        guard !users.isEmpty else { return [] }
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

    /// The expired list (§11.2 `get_expired_tokens_universal`, §11.3 `expired_tokens`); with
    /// `clear`, emptied in the same transaction that read it.
    public func expiredTokens(clear: Bool) async throws -> [RegisteredToken] {
        try await pool.write { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT type, token, user_id, registered_at FROM _sm_push_expired ORDER BY expired_at, type, token")
            if clear { try db.execute(sql: "DELETE FROM _sm_push_expired") }
            return rows.compactMap(Self.registeredToken)
        }
    }

    static func registeredToken(_ row: Row) -> RegisteredToken? {
        let typeName: String = row["type"]
        // Rows are written only from validated tokens; anything else is skipped, not fatal.
        guard let type = PushTokenType(rawValue: typeName), let token = try? PushToken(type: type, token: row["token"]) else { return nil }
        return RegisteredToken(token: token, user: row["user_id"], registeredMilliseconds: row["registered_at"])
    }
}
