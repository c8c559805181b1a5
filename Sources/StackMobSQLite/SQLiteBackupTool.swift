import Foundation
import StackMobCore

#if canImport(Glibc)
    import Glibc
#endif

/// Backups of the SQLite databases (docs/operations.md, "Backups and restore"):
/// `stackmob-server backup` and `restore`, and the scheduled copies of `backups.*`. PostgreSQL
/// deployments use pg_dump or point-in-time recovery.
public enum BackupTool {
    /// The database file of an environment.
    public static func databasePath(configuration: StackMobConfiguration, environment: EnvironmentKind) -> String {
        (configuration.dataDirectory as NSString).appendingPathComponent("\(environment.rawValue).sqlite")
    }

    /// A consistent copy of an environment's database into `target`, while a server may be
    /// serving writes from another process. The copy is made under a hidden name beside
    /// `target`, synced, then renamed (`disk`): `target` is a whole copy on the disk, or absent.
    /// Returns the copy's integrity check ("ok").
    public static func backup(
        configuration: StackMobConfiguration, environment: EnvironmentKind, to target: String, disk: DiskSync = .system
    ) throws -> String {
        let source = databasePath(configuration: configuration, environment: environment)
        guard FileManager.default.fileExists(atPath: source) else { throw TransferError.unreadable(file: source) }
        guard !FileManager.default.fileExists(atPath: target) else { throw TransferError.exists(target) }
        let partial = hiddenBeside(target, suffix: "\(UUID().uuidString).partial")
        do {
            try SQLiteStorageEngine.copy(databaseAt: source, to: partial)
            try disk.syncFile(atPath: partial)
            // Not over a file made meanwhile. (`link` would refuse one itself, but file systems
            // a backup may go to, such as exFAT, have no hard links.)
            guard !FileManager.default.fileExists(atPath: target) else { throw TransferError.exists(target) }
            guard rename(partial, target) == 0 else { throw PrivateFileError(path: target, code: errno) }
            try disk.syncDirectory(containing: target)
        } catch {
            unlink(partial)
            throw error
        }
        return try SQLiteStorageEngine.integrityCheck(databaseAt: target)
    }

    /// `.<name>.<suffix>` in `path`'s directory.
    private static func hiddenBeside(_ path: String, suffix: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return (directory as NSString).appendingPathComponent(".\((path as NSString).lastPathComponent).\(suffix)")
    }

    /// Puts a backup back as an environment's database; the server must be stopped. The current
    /// database (with its `-wal` and `-shm` files, which may hold its last commits) is kept
    /// beside it as `<env>.sqlite.before-restore-<ms>`. Refuses a copy that fails
    /// `PRAGMA integrity_check`, and a database another process (a running server) has open.
    /// The copy is made and synced (`disk`) under a hidden name first, then renamed into place:
    /// a crash or a power loss leaves the old database or the whole copy, never part of it.
    public static func restore(
        configuration: StackMobConfiguration, environment: EnvironmentKind, from backup: String, disk: DiskSync = .system
    ) throws -> String? {
        let manager = FileManager.default
        guard manager.fileExists(atPath: backup) else { throw TransferError.unreadable(file: backup) }
        let check = try SQLiteStorageEngine.integrityCheck(databaseAt: backup)
        guard check == "ok" else { throw TransferError.badFile(file: backup, "fails PRAGMA integrity_check: \(check)") }
        let target = databasePath(configuration: configuration, environment: environment)
        if SQLiteStorageEngine.isOpenElsewhere(databaseAt: target) { throw RestoreRefusal.databaseInUse(target) }
        try PrivateFiles.createDirectory(atPath: configuration.dataDirectory)
        let incoming = hiddenBeside(target, suffix: "\(UUID().uuidString).restoring")
        do {
            try manager.copyItem(atPath: backup, toPath: incoming)
            // A copy keeps its source's mode; the database is the server's user's alone.
            try PrivateFiles.restrict(fileAtPath: incoming)
            try disk.syncFile(atPath: incoming)
            // The old database's last commits moved into its own file: the kept file is whole
            // without a WAL, and none is left beside the copy for SQLite to replay into it. One
            // too damaged to open keeps its WAL beside it instead (below).
            if manager.fileExists(atPath: target) { try? SQLiteStorageEngine.checkpoint(databaseAt: target) }
            var kept: String?
            if manager.fileExists(atPath: target) {
                let aside = "\(target).before-restore-\(Int64(Date().timeIntervalSince1970 * 1000))"
                // A second name for the old database, so that `target` names a database at every
                // moment until the copy is renamed over it; moved where there are no hard links.
                if link(target, aside) != 0 { try manager.moveItem(atPath: target, toPath: aside) }
                kept = aside
            }
            for suffix in ["-wal", "-shm"] where manager.fileExists(atPath: target + suffix) {
                if let kept {
                    try manager.moveItem(atPath: target + suffix, toPath: kept + suffix)
                } else {
                    try manager.removeItem(atPath: target + suffix)
                }
            }
            // The old WAL gone on the disk before the copy takes the name it was beside, and the
            // copy's name before the server is started on it.
            try disk.syncDirectory(containing: target)
            guard rename(incoming, target) == 0 else { throw PrivateFileError(path: target, code: errno) }
            try disk.syncDirectory(containing: target)
            return kept
        } catch {
            try? manager.removeItem(atPath: incoming)
            throw error
        }
    }
}

/// Why `restore` did nothing.
public enum RestoreRefusal: Error, Sendable, CustomStringConvertible {
    case databaseInUse(String)

    public var description: String {
        switch self {
        case .databaseInUse(let path):
            "'\(path)' is open in another process: stop the server first"
        }
    }
}
