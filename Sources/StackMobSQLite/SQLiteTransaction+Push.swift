import GRDB
import StackMobCore

/// The push registry's part of a datastore write (table of migration v005).
extension SQLiteTransaction {
    func deletePushTokens(linkedTo userID: String) throws {
        try db.execute(sql: "DELETE FROM _sm_push_tokens WHERE user_id = ?", arguments: [userID])
    }
}
