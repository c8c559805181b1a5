import GRDB
import StackMobCore

/// Applies the internal-table migrations of `migrations/` in order, each once, each in its own
/// transaction. Applied names are recorded in `_sm_migrations` (our own table rather than GRDB's
/// `grdb_migrations`, whose name a user schema could take).
enum SQLiteMigrator {
    static func migrate(_ pool: DatabasePool, migrations: [(name: String, sql: String)]) throws {
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS _sm_migrations (name TEXT PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL)")
        }
        let applied = try pool.read { db in
            Set(try String.fetchAll(db, sql: "SELECT name FROM _sm_migrations"))
        }
        for migration in migrations where !applied.contains(migration.name) {
            try pool.write { db in
                try db.execute(sql: migration.sql)
                try db.execute(
                    sql: "INSERT INTO _sm_migrations (name, applied_at) VALUES (?, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))",
                    arguments: [migration.name])
            }
        }
    }
}
