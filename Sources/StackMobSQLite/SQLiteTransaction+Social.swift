import GRDB
import StackMobCore

/// Social links' part of a datastore write (table of migration v006).
extension SQLiteTransaction {
    func deleteSocialLinks(userSchema: String, userID: String) throws {
        try db.execute(sql: "DELETE FROM _sm_social_links WHERE user_schema = ? AND user_id = ?", arguments: [userSchema, userID])
    }

    /// The token store's rows of a deleted user (tables of migrations v002 and v004), in the
    /// delete's own transaction.
    func deleteCredentials(userSchema: String, userID: String) throws {
        for table in ["_sm_tokens", "_sm_cookie_sessions", "_sm_temporary_passwords"] {
            try db.execute(sql: "DELETE FROM \(table) WHERE user_schema = ? AND user_id = ?", arguments: [userSchema, userID])
        }
    }

    func recordConfiguredGrant(role: String, member: String, at time: Int64) throws -> Bool {
        try db.execute(
            sql: "INSERT OR IGNORE INTO _sm_role_grants (role, member, granted_at) VALUES (?, ?, ?)", arguments: [role, member, time])
        return db.changesCount > 0
    }

    func forgetConfiguredGrants() throws {
        try db.execute(sql: "DELETE FROM _sm_role_grants")
    }
}
