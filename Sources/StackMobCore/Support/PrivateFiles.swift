import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What the server writes is its own user's alone: directories `0700`, files `0600` (STYLE.md,
/// "Secure by default"; docs/operations.md, "Data at rest"). The data directory holds the keys,
/// the seal key, the databases and the uploaded files; a backup or an export holds the same data.
///
/// A file gets its mode when it is created, so there is no moment when another user may open it.
/// Not through the process's umask: that is global state, and would change what every other part
/// of the process creates too (an HTML5 site, a temporary file of a library).
public enum PrivateFiles {
    public static let directoryMode: mode_t = 0o700
    public static let fileMode: mode_t = 0o600

    /// Creates the directory and its missing parents, `0700`. A directory that exists keeps its
    /// mode: it may be the operator's (a mounted volume); `Backend.open` warns when the data
    /// directory is open to others. With `durable`, each directory made is on the disk, named in
    /// its parent, when this returns (`fsync` of the parent): a file written into it durably is
    /// not lost with a directory the disk never recorded. Without it, a directory's name reaches
    /// the disk when the kernel writes it back, which is enough for one made once at start (the
    /// data directory: a power loss right after takes nothing answered).
    public static func createDirectory(atPath path: String, durable: Bool = false) throws {
        try createDirectory(atPath: path, disk: .durable(durable))
    }

    /// `createDirectory(atPath:durable:)` syncing through `disk` (tests record the calls).
    static func createDirectory(atPath path: String, disk: DiskSync) throws {
        var missing: [String] = []
        var current = (path as NSString).standardizingPath
        while !current.isEmpty, current != "/", !FileManager.default.fileExists(atPath: current) {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for directory in missing.reversed() {
            if mkdir(directory, directoryMode) != 0 {
                if errno == EEXIST { continue }
                throw PrivateFileError(path: directory, code: errno)
            }
            try disk.syncDirectory(containing: directory)
        }
    }

    /// The most bytes one `write` call hands the kernel. On Linux 6.18 with ext4, a call of a
    /// mebibyte into a new file cost the kernel ten times the CPU of the same bytes in smaller
    /// calls once several threads wrote at a time, the shape of concurrent uploads; calls of
    /// 64 KiB cost nothing measurable anywhere (docs/benchmarks.md, "Figures behind design
    /// choices").
    static let writeChunk = 64 * 1024

    /// Writes `bytes` as the whole of `path`, `0600`: written to a new hidden file beside it,
    /// then renamed into place, so that a crash never leaves half a file (as
    /// `Data.write(options: .atomic)` does, which creates its file with the default mode).
    ///
    /// With `durable` the file survives a power loss once this returns, as a commit does with
    /// `storage.synchronous: full` (docs/operations.md, "Durability"): its bytes are synced before
    /// the rename, so the name never comes to the disk ahead of them (an empty file where a row
    /// names an upload), and the directory after it, so the name is there too. Without it, the
    /// kernel writes the file back when it will: a killed process loses nothing, a power loss
    /// may.
    public static func write(_ bytes: some Collection<UInt8>, to path: String, durable: Bool) throws {
        try write(bytes, to: path, disk: .durable(durable))
    }

    /// `write(_:to:durable:)` syncing through `disk` (tests record the calls).
    static func write(_ bytes: some Collection<UInt8>, to path: String, disk: DiskSync) throws {
        let name = (path as NSString).lastPathComponent
        let temporary = ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(
            ".\(name).\(UUID().uuidString).tmp")
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        guard descriptor >= 0 else { throw PrivateFileError(path: path, code: errno) }
        let written = Array(bytes).withUnsafeBytes { buffer -> Int32 in
            var offset = 0
            while offset < buffer.count {
                let count = systemWrite(descriptor, buffer.baseAddress! + offset, min(buffer.count - offset, writeChunk))
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += count
            }
            return 0
        }
        let synced = written == 0 ? disk.sync(descriptor: descriptor) : 0
        let closed = close(descriptor) == 0 ? 0 : errno
        guard written == 0, synced == 0, closed == 0, rename(temporary, path) == 0 else {
            let code = written != 0 ? written : synced != 0 ? synced : closed != 0 ? closed : errno
            unlink(temporary)
            throw PrivateFileError(path: path, code: code)
        }
        try disk.syncDirectory(containing: path)
    }

    /// Creates `path` empty, `0600`, when nothing is there (true); leaves a file that exists
    /// alone (false).
    /// SQLite keeps the mode of a database file it finds empty, and gives its `-wal` and `-shm`
    /// files the mode of the database file (`findCreateFileMode` and `unixOpenSharedMemory` in
    /// its unix VFS), so a database created here and its companions are all `0600`.
    @discardableResult
    public static func createEmptyFile(atPath path: String) throws -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        guard descriptor >= 0 else {
            if errno == EEXIST { return false }
            throw PrivateFileError(path: path, code: errno)
        }
        close(descriptor)
        return true
    }

    /// Sets a file that exists to `0600` (one an earlier version created with the default mode).
    public static func restrict(fileAtPath path: String) throws {
        if chmod(path, fileMode) != 0 && errno != ENOENT { throw PrivateFileError(path: path, code: errno) }
    }

    /// Sets every directory under `path` (itself included) to `0700` and every file to `0600`:
    /// a tree copied from elsewhere keeps the modes of its source.
    public static func restrict(treeAtPath path: String) throws {
        if chmod(path, directoryMode) != 0 { throw PrivateFileError(path: path, code: errno) }
        guard let enumerator = FileManager.default.enumerator(atPath: path) else { return }
        for case let relative as String in enumerator {
            let item = (path as NSString).appendingPathComponent(relative)
            let isDirectory = (enumerator.fileAttributes?[.type] as? FileAttributeType) == .typeDirectory
            if chmod(item, isDirectory ? directoryMode : fileMode) != 0 { throw PrivateFileError(path: item, code: errno) }
        }
    }

    /// The permission bits of `path`; nil when it cannot be read.
    public static func mode(ofItemAtPath path: String) -> mode_t? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return status.st_mode & 0o7777
    }
}

/// The C library's `write`, which `PrivateFiles.write` hides inside the type.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
