import GRDB
import StackMobCore

/// Social links' part of a datastore write (table of migration v006).
extension SQLiteTransaction {
    func deleteSocialLinks(userSchema: String, userID: String) throws {
        try db.execute(sql: "DELETE FROM _sm_social_links WHERE user_schema = ? AND user_id = ?", arguments: [userSchema, userID])
    }
}
