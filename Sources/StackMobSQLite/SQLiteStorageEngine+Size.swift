import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#endif

extension SQLiteStorageEngine {
    /// The database file and its write-ahead log, as `stat` sees them (the `-shm` index is a few
    /// KiB of shared memory, not data). Two `stat` calls are file system calls, so they run on a
    /// reader queue of GRDB's pool, reached from Swift's shared pool, never on the caller's
    /// thread, which may be an event loop (docs/architecture.md, "The event-loop rule").
    public func databaseSize() async throws -> Int64? {
        let database = pool.database
        return try await withTaskExecutorPreference(globalConcurrentExecutor) {
            try await database.read { _ in
                [database.path, database.path + "-wal"].reduce(Int64(0)) { total, path in total + (Self.fileSize(atPath: path) ?? 0) }
            }
        }
    }

    private static func fileSize(atPath path: String) -> Int64? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int64(status.st_size)
    }
}
