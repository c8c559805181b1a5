import Crypto
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Files in `<data_dir>/files/<environment>/<schema>/<id>/<field>/<filename>`, served by the
/// server itself. Each file has a sidecar `.meta-<filename>` holding its content type and ETag
/// (file names are sanitised never to start with a dot, so the two cannot collide).
public struct LocalFileStore: FileStore {
    public let root: URL
    public var publicBaseURL: String? { nil }
    /// Whether a stored file is on the disk before `put` returns, as a commit is with
    /// `storage.synchronous: full`; off with `normal` (and in CI mode, whose data is thrown away).
    public let durable: Bool
    /// Durable writes under way at most; the others wait, holding no thread. Each write holds
    /// a thread while it waits for the disk, so without a bound a burst of uploads would hold as
    /// many threads as it has connections; past about eight at once a disk syncs no more files a
    /// second (docs/benchmarks.md, "Figures behind design choices").
    let writers: ConcurrencyLimit

    /// How many durable writes go to the disk at once.
    public static let concurrentDurableWrites = 8

    public init(dataDirectory: String, durable: Bool = true) {
        root = URL(fileURLWithPath: dataDirectory).appendingPathComponent("files", isDirectory: true)
        self.durable = durable
        writers = ConcurrencyLimit(width: Self.concurrentDurableWrites)
    }

    /// Stores the file before the write that names it commits: with `durable`, a power loss
    /// after the answer cannot leave the object naming a file the disk never received.
    public func put(_ bytes: [UInt8], key: FileKey, contentType: String) async throws {
        let file = url(of: key)
        let etag = "\"" + HexDigit.lowercase(SHA256.hash(data: bytes)).prefix(32) + "\""
        let meta = JSONWriter.bytes(["content_type": .string(contentType), "etag": .string(etag)])
        let metaPath = metaURL(of: key).path
        let durable = durable
        // Directories 0700 and files 0600 (`PrivateFiles`), each written whole to a temporary
        // file and renamed: a crash never leaves half a file.
        @Sendable func store() throws {
            try PrivateFiles.createDirectory(atPath: file.deletingLastPathComponent().path, durable: durable)
            try PrivateFiles.write(meta, to: metaPath, durable: durable)
            try PrivateFiles.write(bytes, to: file.path, durable: durable)
        }
        do {
            // Syncing waits for the disk: never on Swift's shared pool (docs/architecture.md,
            // "The event-loop rule").
            try await onDisk("StackMob.files.put", store)
        } catch {
            throw BinaryFieldError.storageFailed(error.localizedDescription)
        }
    }

    /// Removes the file under `key`. With `durable`, the removal is on the disk when this
    /// returns, as a commit is: a deleted user's file does not come back after a power loss.
    public func delete(_ key: FileKey) async throws {
        let paths = [url(of: key).path, metaURL(of: key).path]
        let durable = durable
        @Sendable func remove() throws {
            let manager = FileManager.default
            var removed = false
            for path in paths where manager.fileExists(atPath: path) {
                try manager.removeItem(atPath: path)
                removed = true
            }
            // Empty field and object directories go too, so a deleted object leaves nothing
            // behind; the directory that named the last thing removed is synced. `rmdir` removes
            // only an empty one: a file stored meanwhile under the same object stays.
            var directory = (paths[0] as NSString).deletingLastPathComponent
            for _ in 0..<2 {
                guard rmdir(directory) == 0 else { break }
                removed = true
                directory = (directory as NSString).deletingLastPathComponent
            }
            if durable && removed { try DiskSync.system.syncDirectory(atPath: directory) }
        }
        try await onDisk("StackMob.files.delete", remove)
    }

    /// Removes the temporary files of writes a crash cut short (`PrivateFiles.write`'s hidden
    /// `.<name>.<UUID>.tmp`, renamed into place when a write completes) older than `age`: a
    /// younger one may be a write under way, in this process or in another instance sharing the
    /// directory. Walks the whole tree, on a thread of its own, and stops where it is when the
    /// calling task is cancelled (a shutdown).
    public func sweepLeftovers(olderThan age: Duration) async throws -> Int {
        let root = root.path
        let cutoff = Date(timeIntervalSinceNow: -Double(age.components.seconds))
        let stop = StopFlag()
        return try await withTaskCancellationHandler {
            try await ThreadOfItsOwn.run("StackMob.files.sweep") {
                guard let walk = FileManager.default.enumerator(atPath: root) else { return 0 }
                var removed = 0
                while !stop.isSet, let relative = walk.nextObject() as? String {
                    let path = (root as NSString).appendingPathComponent(relative)
                    guard Self.isLeftover(path), let modified = walk.fileAttributes?[.modificationDate] as? Date, modified < cutoff
                    else { continue }
                    if unlink(path) == 0 { removed += 1 }
                }
                return removed
            }
        } onCancel: {
            stop.set()
        }
    }

    /// Whether the file at `path` is a write a crash cut short: named `.<name>.<UUID>.tmp`, as
    /// `PrivateFiles.write` names a file it has not finished, and not a stored file's sidecar. A
    /// stored file's name never starts with a dot (`FileKey`), but may end like a leftover's
    /// (`x.<UUID>.tmp`), and then its sidecar, `.meta-x.<UUID>.tmp`, does too: it is kept while
    /// the file it describes is there.
    static func isLeftover(_ path: String) -> Bool {
        let name = (path as NSString).lastPathComponent
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return false }
        let stem = name.dropLast(4)
        guard let dot = stem.lastIndex(of: "."), dot > stem.startIndex, UUID(uuidString: String(stem[stem.index(after: dot)...])) != nil
        else { return false }
        guard name.hasPrefix(metaPrefix) else { return true }
        let described = ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(String(name.dropFirst(metaPrefix.count)))
        return !FileManager.default.fileExists(atPath: described)
    }

    /// The sweep's stop, set from the cancelled task, read on the sweep's thread.
    private final class StopFlag: Sendable {
        private let value = Atomic(false)
        var isSet: Bool { value.load(ordering: .relaxed) }
        func set() { value.store(true, ordering: .relaxed) }
    }

    /// Runs file work that, when `durable`, waits for the disk: then on a thread of its own and
    /// in its turn among the durable writes; otherwise where the caller is.
    private func onDisk(_ label: String, _ work: @escaping @Sendable () throws -> Void) async throws {
        if durable {
            try await writers.run { try await ThreadOfItsOwn.run(label, work) }
        } else {
            try work()
        }
    }

    /// The file under `key`, or nil when there is none.
    public func file(_ key: FileKey) -> StoredFile? {
        let path = url(of: key).path
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int,
            let metaData = FileManager.default.contents(atPath: metaURL(of: key).path),
            let meta = (try? JSONParser.parse(Array(metaData)))?.objectValue,
            let contentType = meta["content_type"]?.stringValue, let etag = meta["etag"]?.stringValue
        else { return nil }
        return StoredFile(path: path, size: size, contentType: contentType, etag: etag)
    }

    public func url(of key: FileKey) -> URL {
        key.segments.reduce(root) { $0.appendingPathComponent($1) }
    }

    /// How a sidecar's name begins: the file's own name follows.
    static let metaPrefix = ".meta-"

    private func metaURL(of key: FileKey) -> URL {
        url(of: key).deletingLastPathComponent().appendingPathComponent(Self.metaPrefix + key.filename)
    }
}
