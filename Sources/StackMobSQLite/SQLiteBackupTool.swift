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
    /// serving writes from another process. Returns the copy's integrity check ("ok").
    public static func backup(configuration: StackMobConfiguration, environment: EnvironmentKind, to target: String) throws -> String {
        let source = databasePath(configuration: configuration, environment: environment)
        guard FileManager.default.fileExists(atPath: source) else { throw TransferError.unreadable(file: source) }
        guard !FileManager.default.fileExists(atPath: target) else { throw TransferError.exists(target) }
        try SQLiteStorageEngine.copy(databaseAt: source, to: target)
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
        return kept
    }

    /// One scheduled round: a copy of each environment's database, through the running server's
    /// own connections, into `directory` as `<env>-<ms>.sqlite`, then only the newest `keep`
    /// copies of each environment are kept. Returns the new files.
    ///
    /// A copy is written under a hidden name and renamed once complete, so that a round stopped
    /// midway (the server shutting down cancels it) never leaves a partial copy under a name that
    /// rotation and `restore` take for a backup.
    public static func scheduledRound(backend: Backend, settings: BackupSettings, now: Int64) async throws -> [String] {
        let directory = settings.directory(dataDirectory: backend.configuration.dataDirectory)
        let manager = FileManager.default
        try PrivateFiles.createDirectory(atPath: directory)
        var written: [String] = []
        for kind in EnvironmentKind.allCases {
            guard let engine = backend.environment(kind).datastore.backupEngine else { continue }
            let path = (directory as NSString).appendingPathComponent("\(kind.rawValue)-\(now).sqlite")
            if manager.fileExists(atPath: path) { continue }
            let partial = (directory as NSString).appendingPathComponent(".\(kind.rawValue)-\(now).sqlite.partial")
            try? manager.removeItem(atPath: partial)
            do {
                try await engine.backup(to: partial)
                try manager.moveItem(atPath: partial, toPath: path)
            } catch {
                try? manager.removeItem(atPath: partial)
                throw error
            }
            written.append(path)
            try rotate(directory: directory, environment: kind, keep: settings.keep)
        }
        return written
    }

    /// Deletes all but the newest `keep` scheduled copies of an environment.
    static func rotate(directory: String, environment: EnvironmentKind, keep: Int) throws {
        let prefix = "\(environment.rawValue)-"
        let copies = (try FileManager.default.contentsOfDirectory(atPath: directory))
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".sqlite") }
            .compactMap { name -> (Int64, String)? in
                Int64(name.dropFirst(prefix.count).dropLast(".sqlite".count)).map { ($0, name) }
            }
            .sorted { $0.0 > $1.0 }
        for (_, name) in copies.dropFirst(keep) {
            try FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(name))
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
