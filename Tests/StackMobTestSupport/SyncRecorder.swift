import Foundation
import StackMobCore
import Synchronization

/// Records what a `DiskSync` syncs, in order: which file or directory (by inode, which a rename
/// keeps) and what `observe` saw at that moment (where a link pointed, whether a name existed).
/// No test can pull the power; this shows that everything is synced, and before what.
public final class SyncRecorder: Sendable {
    public struct Synced: Sendable, Equatable, CustomStringConvertible {
        public let inode: UInt64
        public let isDirectory: Bool
        public let observed: String

        public init(inode: UInt64, isDirectory: Bool, observed: String) {
            self.inode = inode
            self.isDirectory = isDirectory
            self.observed = observed
        }

        public var description: String { "\(isDirectory ? "directory" : "file") \(inode) (\(observed))" }
    }

    private let recorded = Mutex<[Synced]>([])
    private let observe: @Sendable () -> String

    public init(observe: @escaping @Sendable () -> String = { "" }) {
        self.observe = observe
    }

    public var synced: [Synced] { recorded.withLock { $0 } }

    /// Syncs through the recorder, then `fsync`.
    public var disk: DiskSync {
        DiskSync { [self] descriptor in
            var status = stat()
            fstat(descriptor, &status)
            let synced = Synced(inode: UInt64(status.st_ino), isDirectory: status.st_mode & S_IFMT == S_IFDIR, observed: observe())
            recorded.withLock { $0.append(synced) }
            return fsync(descriptor)
        }
    }

    /// The index of the first sync of the item at `path`, nil when it was never synced.
    public func firstSync(ofItemAtPath path: String) -> Int? {
        guard let inode = Self.inode(ofItemAtPath: path) else { return nil }
        return synced.firstIndex { $0.inode == inode }
    }

    /// The index of the last sync of the item at `path`, nil when it was never synced.
    public func lastSync(ofItemAtPath path: String) -> Int? {
        guard let inode = Self.inode(ofItemAtPath: path) else { return nil }
        return synced.lastIndex { $0.inode == inode }
    }

    public static func inode(ofItemAtPath path: String) -> UInt64? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return UInt64(status.st_ino)
    }

    /// Every file and directory under `path`, itself included (symbolic links not).
    public static func tree(atPath path: String) -> [String] {
        var items = [path]
        let entries = FileManager.default.enumerator(atPath: path)
        while let relative = entries?.nextObject() as? String {
            let type = entries?.fileAttributes?[.type] as? FileAttributeType
            if type == .typeRegular || type == .typeDirectory { items.append((path as NSString).appendingPathComponent(relative)) }
        }
        return items
    }
}
