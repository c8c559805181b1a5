import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Each environment's deployed HTML5 app: numbered, immutable versions under
/// `<data_dir>/html5/<env>/versions/<n>/` (the files in `site/`, gzip copies in `gzip/`), and a
/// `current` symbolic link to the one being served.
///
/// A deploy copies into a staging directory, renames it to its number, then points `current` at
/// it by renaming a new link over the old one: `rename(2)` is atomic, so a request, which
/// resolves `current` once, reads the old version or the new one, never a mix, and never finds
/// no `current`. With `storage.synchronous: full`, a version's files are on the disk before
/// `current` names it, and `current` is when a deploy returns: after a power loss the server
/// serves the version it answered, or the one before, whole (docs/operations.md, "Durability").
/// Deploys, rollbacks and promotes of one environment run one at a time (`HTML5DeployLock`).
/// This is the domain service the CLI and the admin API call; it blocks on the disk, so never
/// on an event loop.
public struct HTML5Deployments: Sendable {
    public let root: URL
    /// Versions kept per environment, the current one included.
    public let keepVersions: Int
    /// How a version and the `current` link are put on the disk.
    public let disk: DiskSync

    public init(dataDirectory: String, keepVersions: Int = HTML5Settings().keepVersions, disk: DiskSync = .system) {
        root = URL(fileURLWithPath: dataDirectory).appendingPathComponent("html5", isDirectory: true)
        self.keepVersions = max(1, keepVersions)
        self.disk = disk
    }

    public init(configuration: StackMobConfiguration) {
        self.init(
            dataDirectory: configuration.dataDirectory, keepVersions: configuration.html5.keepVersions,
            disk: .durable(configuration.durability == .full))
    }

    /// The version being served, resolved once for the request that asks.
    public func current(_ kind: EnvironmentKind) -> HTML5Version? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: currentLink(kind).path),
            let number = Int(target.split(separator: "/").last ?? "")
        else { return nil }
        return HTML5Version(number: number, directory: versionsDirectory(kind).appendingPathComponent(String(number)))
    }

    /// Every kept version, oldest first.
    public func versions(_ kind: EnvironmentKind) -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: versionsDirectory(kind).path)) ?? []
        return names.compactMap { Int($0) }.sorted()
    }

    /// Publishes the files of `directory` as the environment's new current version.
    @discardableResult
    public func deploy(directory: String, to kind: EnvironmentKind) throws -> Int {
        // A bad directory is refused before the lock: 400 whatever else runs, and nothing made.
        let files = try HTML5Source.files(in: directory)
        return try locked(kind) { try publish(files, from: directory, to: kind) }
    }

    /// Publishes the site in a tar archive (`SiteArchive`) as the environment's new current
    /// version. The archive is unpacked beside the versions, checked whole, then deployed as a
    /// directory; nothing is published when any entry is refused.
    @discardableResult
    public func deploy(archive: [UInt8], to kind: EnvironmentKind, maxUnpackedBytes: Int) throws -> Int {
        try locked(kind) {
            let manager = FileManager.default
            let upload = environmentDirectory(kind).appendingPathComponent(".upload-\(UUID().uuidString)", isDirectory: true)
            defer { try? manager.removeItem(at: upload) }
            do {
                try manager.createDirectory(at: upload, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            } catch {
                throw HTML5Error.storageFailed(error.localizedDescription)
            }
            do throws(SiteArchiveError) {
                try SiteArchive.unpack(archive, into: upload.path, maxUnpackedBytes: maxUnpackedBytes)
            } catch {
                throw HTML5Error.badArchive(error)
            }
            return try publish(try HTML5Source.files(in: upload.path), from: upload.path, to: kind)
        }
    }

    /// Serves the version before the current one again; the newer ones stay until pruned.
    @discardableResult
    public func rollback(_ kind: EnvironmentKind) throws -> Int {
        guard current(kind) != nil else { throw HTML5Error.noDeployedVersion(kind) }
        return try locked(kind) {
            guard let current = current(kind) else { throw HTML5Error.noDeployedVersion(kind) }
            guard let previous = versions(kind).last(where: { $0 < current.number }) else { throw HTML5Error.noPreviousVersion(kind) }
            try point(kind, at: previous)
            return previous
        }
    }

    /// Copies `source`'s current version to `target` as a new version there (development's files
    /// to production, the StackMob "deploy to production" step).
    @discardableResult
    public func promote(from source: EnvironmentKind = .development, to target: EnvironmentKind = .production) throws -> Int {
        precondition(source != target, "promote copies one environment's version to another")
        guard current(source) != nil else { throw HTML5Error.noDeployedVersion(source) }
        // The source's lock too, so that a prune there cannot remove the version being copied.
        return try locked(source) {
            guard let version = current(source) else { throw HTML5Error.noDeployedVersion(source) }
            return try locked(target) {
                try publish(target) { staging in
                    for part in ["site", "gzip"] {
                        let from = version.directory.appendingPathComponent(part)
                        guard FileManager.default.fileExists(atPath: from.path) else { continue }
                        try FileManager.default.copyItem(at: from, to: staging.appendingPathComponent(part))
                    }
                }
            }
        }
    }

    // MARK: - Versions on disk

    /// `body` holding the environment's lock (`HTML5DeployLock`); everything below runs in one.
    private func locked<T>(_ kind: EnvironmentKind, _ body: () throws -> T) throws -> T {
        try HTML5DeployLock.holding(environmentDirectory(kind), kind: kind, disk: disk, body)
    }

    private func publish(_ files: [HTML5Source.Entry], from directory: String, to kind: EnvironmentKind) throws -> Int {
        try publish(kind) { staging in
            try HTML5Source.copy(files, from: directory, into: staging)
        }
    }

    private func publish(_ kind: EnvironmentKind, fill: (URL) throws -> Void) throws -> Int {
        let manager = FileManager.default
        let versions = versionsDirectory(kind)
        let staging = versions.appendingPathComponent(".staging-\(UUID().uuidString)")
        do {
            try PrivateFiles.createDirectory(atPath: versions.path, disk: disk)
            try manager.createDirectory(at: staging, withIntermediateDirectories: false)
            try fill(staging)
            // Every file on the disk before the version has its number.
            try disk.syncTree(atPath: staging.path)
        } catch {
            try? manager.removeItem(at: staging)
            throw error as? HTML5Error ?? HTML5Error.storageFailed(error.localizedDescription)
        }
        // Under the lock no one else numbers a version; a number taken anyway (a directory made
        // by hand) fails the rename, and the next one is tried.
        var number = (self.versions(kind).last ?? 0) + 1
        while rename(staging.path, versions.appendingPathComponent(String(number)).path) != 0 {
            let code = errno
            guard code == EEXIST || code == ENOTEMPTY, number < Int(Int32.max) else {
                try? manager.removeItem(at: staging)
                throw HTML5Error.storageFailed("cannot rename the staging directory (errno \(code))")
            }
            number += 1
        }
        do {
            try disk.syncDirectory(atPath: versions.path)
        } catch {
            throw HTML5Error.storageFailed(error.localizedDescription)
        }
        try point(kind, at: number)
        prune(kind, keeping: number)
        return number
    }

    /// Points `current` at version `number`: a new link renamed over the old one, atomically.
    private func point(_ kind: EnvironmentKind, at number: Int) throws {
        let link = currentLink(kind)
        let temporary = link.deletingLastPathComponent().appendingPathComponent(".current-\(UUID().uuidString)")
        do {
            try FileManager.default.createSymbolicLink(atPath: temporary.path, withDestinationPath: "versions/\(number)")
        } catch {
            throw HTML5Error.storageFailed(error.localizedDescription)
        }
        guard rename(temporary.path, link.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw HTML5Error.storageFailed("cannot switch the current version (errno \(code))")
        }
        do {
            try disk.syncDirectory(containing: link.path)
        } catch {
            throw HTML5Error.storageFailed("switched to version \(number), but could not sync the switch: \(error.localizedDescription)")
        }
    }

    /// Removes the oldest versions beyond `keepVersions`, never the one being served. Each is
    /// renamed out of the versions' names first (and that synced), so that a removal cut short
    /// by a crash or a power loss never leaves part of a version that a rollback would serve.
    private func prune(_ kind: EnvironmentKind, keeping current: Int) {
        let versions = versionsDirectory(kind)
        // Nor the one `current` names now (the lock keeps other deploys out, not a hand-made link).
        let serving = self.current(kind)?.number
        let old = self.versions(kind).filter { $0 != current && $0 != serving }
        for number in old.dropLast(max(0, keepVersions - 1)) {
            _ = rename(versions.appendingPathComponent(String(number)).path, versions.appendingPathComponent(".pruned-\(UUID().uuidString)").path)
        }
        // Removed only once the renames are on the disk; one left behind goes at the next prune.
        guard (try? disk.syncDirectory(atPath: versions.path)) != nil else { return }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: versions.path)) ?? [] where name.hasPrefix(".pruned-") {
            try? FileManager.default.removeItem(at: versions.appendingPathComponent(name))
        }
    }

    private func environmentDirectory(_ kind: EnvironmentKind) -> URL {
        root.appendingPathComponent(kind.rawValue, isDirectory: true)
    }

    private func versionsDirectory(_ kind: EnvironmentKind) -> URL {
        environmentDirectory(kind).appendingPathComponent("versions", isDirectory: true)
    }

    private func currentLink(_ kind: EnvironmentKind) -> URL {
        environmentDirectory(kind).appendingPathComponent("current")
    }
}

/// One deployed version, as resolved for one request.
public struct HTML5Version: Sendable, Equatable {
    public let number: Int
    public let directory: URL
    /// The deployed files.
    public var site: URL { directory.appendingPathComponent("site", isDirectory: true) }
    /// Gzip copies of the compressible files, at the same relative paths.
    public var gzip: URL { directory.appendingPathComponent("gzip", isDirectory: true) }
}
