import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whether, and how, what the server writes is put on the disk before it counts: with
/// `storage.synchronous: full` nothing answered is lost on a power loss (docs/operations.md,
/// "Durability"), files included.
///
/// A file that becomes part of the data under a name (an upload, a backup copy, a deployed
/// site) is synced before it is given that name, so the name never reaches the disk ahead of
/// the bytes (an empty file where a backup or a row says there is data); then the directory
/// that holds the name. Some files are written by others than `PrivateFiles.write`: SQLite's
/// `VACUUM INTO` syncs nothing it writes, and a site is copied by `FileManager`; `syncFile`,
/// `syncDirectory` and `syncTree` sync those once written.
public struct DiskSync: Sendable {
    /// The system call that syncs a descriptor; nil when nothing is synced.
    private let call: (@Sendable (Int32) -> Int32)?

    /// Syncs through `call` in place of `fsync` (tests record the calls).
    package init(call: @escaping @Sendable (Int32) -> Int32) {
        self.call = call
    }

    private init() {
        call = nil
    }

    /// `fsync(2)`.
    public static let system = DiskSync(call: { fsync($0) })
    /// Nothing synced: the kernel writes back when it will. A killed process loses nothing, a
    /// power loss may (`storage.synchronous: normal`, CI mode).
    public static let off = DiskSync()

    public static func durable(_ durable: Bool) -> DiskSync { durable ? .system : .off }

    public var isOn: Bool { call != nil }

    /// Syncs an open descriptor; an error number, 0 when it worked or nothing is synced.
    func sync(descriptor: Int32) -> Int32 {
        guard let call else { return 0 }
        return call(descriptor) == 0 ? 0 : errno
    }

    /// Syncs the file at `path`, written by someone else.
    public func syncFile(atPath path: String) throws {
        try sync(path, flags: O_RDONLY | O_CLOEXEC)
    }

    /// Syncs the directory at `path`: the names made, renamed or removed in it.
    public func syncDirectory(atPath path: String) throws {
        try sync(path, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    }

    /// Syncs the directory that holds `path`, so that the name of what was just created,
    /// renamed or linked there is on the disk.
    public func syncDirectory(containing path: String) throws {
        let parent = (path as NSString).deletingLastPathComponent
        try syncDirectory(atPath: parent.isEmpty ? "." : parent)
    }

    /// Syncs every file and directory of the tree at `path`, itself included: a tree built under
    /// a temporary name, before it is renamed into place. Symbolic links are left alone (their
    /// targets are not the tree's).
    public func syncTree(atPath path: String) throws {
        guard isOn else { return }
        if let entries = FileManager.default.enumerator(atPath: path) {
            for case let relative as String in entries {
                let item = (path as NSString).appendingPathComponent(relative)
                switch entries.fileAttributes?[.type] as? FileAttributeType {
                case .typeRegular: try syncFile(atPath: item)
                case .typeDirectory: try syncDirectory(atPath: item)
                default: continue
                }
            }
        }
        try syncDirectory(atPath: path)
    }

    private func sync(_ path: String, flags: Int32) throws {
        guard isOn else { return }
        let opened = open(path, flags)
        guard opened >= 0 else { throw PrivateFileError(path: path, code: errno) }
        let failed = sync(descriptor: opened)
        close(opened)
        if failed != 0 { throw PrivateFileError(path: path, code: failed) }
    }
}
