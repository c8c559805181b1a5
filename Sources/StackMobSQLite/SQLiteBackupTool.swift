import StackMobCore
import Foundation

/// Backups of the SQLite databases (docs/operations.md, "Backups and restore"):
/// `stackmob-server backup` and `restore`, and the scheduled copies of `backups.*`. PostgreSQL
/// deployments use pg_dump or point-in-time recovery.
public enum BackupTool {
    /// The database file of an environment.
    public static func databasePath(configuration: StackMobConfiguration, environment: EnvironmentKind) -> String {
        (configuration.dataDirectory as NSString).appendingPathComponent("\(environment.rawValue).sqlite")
    }

    /// A consistent copy of an environment's database into `target`, while a server may be
    /// serving writes from another process, on the disk when this returns (`DiskSync`). Returns
    /// the copy's integrity check ("ok").
    public static func backup(configuration: StackMobConfiguration, environment: EnvironmentKind, to target: String) throws -> String {
        let source = databasePath(configuration: configuration, environment: environment)
        guard FileManager.default.fileExists(atPath: source) else { throw TransferError.unreadable(file: source) }
        guard !FileManager.default.fileExists(atPath: target) else { throw TransferError.exists(target) }
        try SQLiteStorageEngine.copy(databaseAt: source, to: target)
        try DiskSync.system.file(atPath: target)
        try DiskSync.system.directory(containing: target)
        return try SQLiteStorageEngine.integrityCheck(databaseAt: target)
    }

    /// Puts a backup back as an environment's database; the server must be stopped. The current
    /// database (with its `-wal` and `-shm` files, which may hold its last commits) is kept
    /// beside it as `<env>.sqlite.before-restore-<ms>`. Refuses a copy that fails
    /// `PRAGMA integrity_check`, and a database another process (a running server) has open.
    public static func restore(configuration: StackMobConfiguration, environment: EnvironmentKind, from backup: String) throws -> String? {
        let manager = FileManager.default
        guard manager.fileExists(atPath: backup) else { throw TransferError.unreadable(file: backup) }
        let check = try SQLiteStorageEngine.integrityCheck(databaseAt: backup)
        guard check == "ok" else { throw TransferError.badFile(file: backup, "fails PRAGMA integrity_check: \(check)") }
        let target = databasePath(configuration: configuration, environment: environment)
        if SQLiteStorageEngine.isOpenElsewhere(databaseAt: target) { throw RestoreRefusal.databaseInUse(target) }
        try PrivateFiles.createDirectory(atPath: configuration.dataDirectory)
        var kept: String?
        if manager.fileExists(atPath: target) {
            let aside = "\(target).before-restore-\(Int64(Date().timeIntervalSince1970 * 1000))"
            try manager.moveItem(atPath: target, toPath: aside)
            kept = aside
        }
        for suffix in ["-wal", "-shm"] where manager.fileExists(atPath: target + suffix) {
            if let kept {
                try manager.moveItem(atPath: target + suffix, toPath: kept + suffix)
            } else {
                try manager.removeItem(atPath: target + suffix)
            }
        }
        try manager.copyItem(atPath: backup, toPath: target)
        // A copy keeps its source's mode; the database is the server's user's alone.
        try PrivateFiles.restrict(fileAtPath: target)
        // On the disk before the server is started on it, its moves included.
        try DiskSync.system.file(atPath: target)
        try DiskSync.system.directory(containing: target)
        return kept
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
