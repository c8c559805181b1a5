import GRDB
import StackMobCore

/// Cookie sessions on the `_sm_cookie_sessions` table (migration v004).
extension SQLiteTokenStore {
    public func insertCookieSession(hash: String, userSchema: String, userID: String, expiresAt: Int64) async throws {
        try await pool.write { db in
            // Expired rows go on each login, keeping the table small without a sweeper.
            try db.execute(sql: "DELETE FROM _sm_cookie_sessions WHERE expires_at <= ?", arguments: [expiresAt - CookieSession.lifetimeMilliseconds])
            try db.execute(
                sql: "INSERT INTO _sm_cookie_sessions (session_hash, user_schema, user_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [hash, userSchema, userID, expiresAt, expiresAt - CookieSession.lifetimeMilliseconds])
        }
    }

    public func cookieSession(hash: String) async throws -> (userSchema: String, userID: String, expiresAt: Int64)? {
        try await pool.readByKey { db in
            // Compiled once per connection, like the token lookup (`session(accessHash:)`).
            let statement = try db.cachedStatement(sql: "SELECT user_schema, user_id, expires_at FROM _sm_cookie_sessions WHERE session_hash = ?")
            return try Row.fetchOne(statement, arguments: [hash])
                .map { row -> (userSchema: String, userID: String, expiresAt: Int64) in
                    (userSchema: row["user_schema"], userID: row["user_id"], expiresAt: row["expires_at"])
                }
        }
    }

    public func deleteCookieSession(hash: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM _sm_cookie_sessions WHERE session_hash = ?", arguments: [hash])
        }
    }
}
