import Foundation
import GRDB
import StackMobCore

#if canImport(Glibc)
    import Glibc
#endif

/// Online copies of a database file from outside the server process (`stackmob-server backup`,
/// `restore`): SQLite in WAL mode lets a second connection read one consistent snapshot while
/// the server keeps writing, and `VACUUM INTO` writes that snapshot to a new file.
extension SQLiteStorageEngine {
    /// Copies the database at `source` into `target` (which must not exist) as one snapshot.
    /// The copy is `0600`, as `backup(to:)` makes it.
    public static func copy(databaseAt source: String, to target: String) throws {
        let created = try PrivateFiles.createEmptyFile(atPath: target)
        do {
            var configuration = GRDB.Configuration()
            configuration.busyMode = .timeout(10)
            let queue = try DatabaseQueue(path: source, configuration: configuration)
            defer { try? queue.close() }
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM INTO ?", arguments: [target])
            }
        } catch {
            if created { unlink(target) }
            throw error
        }
    }

    /// Moves the commits in a closed WAL database's `-wal` file into the database file, and
    /// ends with no `-wal` left: SQLite removes it when the last connection closes.
    public static func checkpoint(databaseAt path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            _ = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try queue.close()
    }

    /// `PRAGMA integrity_check` of a database file: "ok", or SQLite's first complaints.
    public static func integrityCheck(databaseAt path: String) throws -> String {
        var configuration = GRDB.Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ")
        }
    }

    /// Whether another process has the database open. Every SQLite connection to a WAL database
    /// holds a POSIX lock on its `-shm` file for as long as it is open, and `F_GETLK` reports a
    /// lock held by any other process; the `-wal` file alone says nothing (it outlives a clean
    /// shutdown).
    public static func isOpenElsewhere(databaseAt path: String) -> Bool {
        let descriptor = Glibc.open(path + "-shm", O_RDONLY)
        guard descriptor >= 0 else { return false }
        defer { _ = Glibc.close(descriptor) }
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        probe.l_start = 0
        probe.l_len = 0
        guard fcntl(descriptor, F_GETLK, &probe) == 0 else { return false }
        return probe.l_type != Int16(F_UNLCK)
    }
}
