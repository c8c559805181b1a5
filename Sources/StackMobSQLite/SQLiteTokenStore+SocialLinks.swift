import GRDB
import StackMobCore

/// Social accounts linked to users (table of migration v006).
extension SQLiteTokenStore {
    public func socialLink(_ provider: SocialProvider, userSchema: String, accountID: String) async throws -> SocialLink? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM _sm_social_links WHERE provider = ? AND user_schema = ? AND account_id = ?",
                arguments: [provider.rawValue, userSchema, accountID]
            ).flatMap(Self.socialLink(from:))
        }
    }

    public func socialLink(_ provider: SocialProvider, userSchema: String, userID: String) async throws -> SocialLink? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM _sm_social_links WHERE provider = ? AND user_schema = ? AND user_id = ?",
                arguments: [provider.rawValue, userSchema, userID]
            ).flatMap(Self.socialLink(from:))
        }
    }

    public func link(_ link: SocialLink, at time: Int64) async throws {
        try await pool.write { db in
            let owner = try String.fetchOne(
                db, sql: "SELECT user_id FROM _sm_social_links WHERE provider = ? AND user_schema = ? AND account_id = ?",
                arguments: [link.provider.rawValue, link.userSchema, link.accountID])
            if let owner, owner != link.userID { throw SocialError.linkedToAnotherUser(link.provider) }
            // One account per provider and user: linking another one replaces it.
            try db.execute(
                sql: "DELETE FROM _sm_social_links WHERE provider = ? AND user_schema = ? AND user_id = ?",
                arguments: [link.provider.rawValue, link.userSchema, link.userID])
            do {
                try db.execute(
                    sql: """
                        INSERT INTO _sm_social_links (provider, user_schema, account_id, user_id, token, token_secret, linked_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [link.provider.rawValue, link.userSchema, link.accountID, link.userID, link.token, link.tokenSecret, time])
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                // Another request linked the account in between (WAL writers are serialised, so
                // this is a safety net).
                throw SocialError.linkedToAnotherUser(link.provider)
            }
        }
    }

    public func unlink(_ provider: SocialProvider, userSchema: String, userID: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM _sm_social_links WHERE provider = ? AND user_schema = ? AND user_id = ?",
                arguments: [provider.rawValue, userSchema, userID])
            return db.changesCount > 0
        }
    }

    private static func socialLink(from row: Row) -> SocialLink? {
        guard let provider = SocialProvider(rawValue: row["provider"]) else { return nil }
        return SocialLink(
            provider: provider, userSchema: row["user_schema"], accountID: row["account_id"], userID: row["user_id"], token: row["token"],
            tokenSecret: row["token_secret"])
    }
}
