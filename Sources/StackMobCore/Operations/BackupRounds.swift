import Foundation

/// The server's own copies of its databases while it serves (`backups.*`, the console's
/// Backups page): each environment's database copied through the engine's `StorageBackup` into
/// the backup directory as `<env>-<ms>.sqlite`, the newest `backups.keep` of each kept. An engine
/// that declares no backup (PostgreSQL) is skipped: its operators use its own tools.
public enum BackupRounds {
    /// A copy in the backup directory.
    public struct Copy: Sendable, Equatable {
        public let name: String
        public let environment: EnvironmentKind
        /// Milliseconds since the epoch, from the name.
        public let takenAt: Int64
        public let bytes: Int64
    }

    /// One scheduled round: a copy of each environment's database, through the running server's
    /// own connections, into `directory` as `<env>-<ms>.sqlite`, then only the newest `keep`
    /// copies of each environment are kept. Returns the new files.
    ///
    /// Each copy is made by `copy(_:to:disk:)`.
    public static func round(
        backend: Backend, settings: BackupSettings, now: Int64, environments: [EnvironmentKind] = EnvironmentKind.allCases,
        disk: DiskSync = .system
    ) async throws -> [String] {
        let directory = settings.directory(dataDirectory: backend.configuration.dataDirectory)
        // First, so that a disk that crashed copies filled still gets its room back.
        for swept in Set([directory, (backend.configuration.dataDirectory as NSString).appendingPathComponent("backups")]) {
            sweepPartials(in: swept, now: now)
        }
        var written: [String] = []
        for kind in environments {
            guard let engine = backend.environment(kind).datastore.backupEngine else { continue }
            let path = (directory as NSString).appendingPathComponent("\(kind.rawValue)-\(now).sqlite")
            if FileManager.default.fileExists(atPath: path) { continue }
            try await copy(engine, to: path, disk: disk)
            written.append(path)
            try rotate(directory: directory, environment: kind, keep: settings.keep)
        }
        return written
    }

    /// How long a hidden partial copy goes unwritten before it counts as a crashed copy's. A copy
    /// in progress writes its file until it is synced and renamed, and a sync takes seconds, not
    /// an hour. Should a copy that was merely stopped (a `deploy --drop` suspended in a terminal)
    /// lose its file anyway, its rename fails and the copy with it: `deploy --drop` then drops
    /// nothing, and no backup's name ever holds part of one.
    static let abandonedAfterMilliseconds: Int64 = 3_600_000

    /// Removes the hidden partial copies (`copy(_:to:disk:)`) that a process killed or a machine
    /// stopped midway left in `directory`: each as large as a database, and never renamed,
    /// listed or rotated. Only names `copy` makes are touched (the directory may be the
    /// operator's, shared with other tools), and only those unwritten for
    /// `abandonedAfterMilliseconds` before `now`.
    static func sweepPartials(in directory: String, now: Int64) {
        let manager = FileManager.default
        for name in (try? manager.contentsOfDirectory(atPath: directory)) ?? [] where isPartialCopy(name) {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let modified = (try? manager.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                now - Int64(modified.timeIntervalSince1970 * 1000) > abandonedAfterMilliseconds
            else { continue }
            try? manager.removeItem(atPath: path)
        }
    }

    /// `.<env>-<ms>.sqlite.<UUID>.partial` or `.<env>-<ms>.before-drop.sqlite.<UUID>.partial`.
    static func isPartialCopy(_ name: String) -> Bool {
        guard name.hasPrefix("."), name.hasSuffix(".partial") else { return false }
        let parts = name.dropFirst().dropLast(".partial".count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 || parts.count == 4, UUID(uuidString: String(parts[parts.count - 1])) != nil,
            parts[parts.count - 2] == "sqlite", parts.count == 3 || parts[1] == "before-drop",
            let dash = parts[0].lastIndex(of: "-"), EnvironmentKind(rawValue: String(parts[0][..<dash])) != nil,
            let time = Int64(parts[0][parts[0].index(after: dash)...]), time >= 0
        else { return false }
        return true
    }

    /// Copies the database `engine` serves to `path`, a backup's name, creating its directory:
    /// written under a hidden name and renamed once complete, so that a copy stopped midway (the
    /// server shutting down cancels a round) never leaves a partial copy under a name that
    /// rotation and `restore` take for a backup; synced before the rename and its directory
    /// after (`disk`; SQLite syncs nothing `VACUUM INTO` writes), so that a power loss cannot
    /// leave a torn copy there once rotation has deleted an older, whole one. A failure before
    /// the rename leaves nothing; the hidden name is the copy's own, so two copies at once never
    /// write into one file.
    public static func copy(_ engine: any StorageBackup, to path: String, disk: DiskSync) async throws {
        let directory = (path as NSString).deletingLastPathComponent
        let partial = (directory as NSString).appendingPathComponent(
            "." + (path as NSString).lastPathComponent + ".\(UUID().uuidString).partial")
        do {
            // The syncs wait for the disk: a thread of their own, never Swift's shared pool.
            try await ThreadOfItsOwn.run("StackMob.backup.directory") {
                try PrivateFiles.createDirectory(atPath: directory, disk: disk)
            }
            try await engine.backup(to: partial)
            try await ThreadOfItsOwn.run("StackMob.backup.sync") {
                try disk.syncFile(atPath: partial)
                try FileManager.default.moveItem(atPath: partial, toPath: path)
                try disk.syncDirectory(atPath: directory)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
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

    /// The copies in `directory`, newest first; none when it does not exist. Names that are not
    /// `<env>-<ms>.sqlite` (a partial copy, anything else) are not listed.
    public static func copies(in directory: String) -> [Copy] {
        let manager = FileManager.default
        let names = (try? manager.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name -> Copy? in
            guard name.hasSuffix(".sqlite"), let dash = name.lastIndex(of: "-"),
                let kind = EnvironmentKind(rawValue: String(name[..<dash])),
                let time = Int64(name[name.index(after: dash)...].dropLast(".sqlite".count))
            else { return nil }
            let attributes = try? manager.attributesOfItem(atPath: (directory as NSString).appendingPathComponent(name))
            let bytes = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
            return Copy(name: name, environment: kind, takenAt: time, bytes: bytes)
        }.sorted { ($0.takenAt, $0.name) > ($1.takenAt, $1.name) }
    }
}
