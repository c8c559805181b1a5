import Foundation
import GRDB
import StackMobCore
import Synchronization

/// The engine's `DatabasePool`, and a few connections beside it for short reads on the calling
/// thread (`read` and `readByKey`, within a limit).
///
/// The engine and its stores (tokens, push, operators) read and write through here, never
/// through the `DatabasePool` directly (only the engine's start-up does, before anything else
/// reads).
final class SQLitePool: Sendable {
    let database: DatabasePool
    let inline: SQLiteInlineReaders

    /// - Parameter inlineReaders: connections for reads on the calling thread: as many as
    ///   threads that may run a request at once (the event loops, one per core).
    init(_ database: DatabasePool, inlineReaders: Int) throws {
        self.database = database
        inline = try SQLiteInlineReaders(path: database.path, configuration: database.configuration, count: inlineReaders)
        openEveryReader()
    }

    /// Opens every reader connection of GRDB's pool now. GRDB opens them as reads first overlap,
    /// so under a load that grows they arrive minutes in, each with its caches: resident memory
    /// stepped up a third at once well into a steady load. Opened at start, the memory a load
    /// settles at is reached in its first seconds and stays (docs/benchmarks.md, "Memory that
    /// returns").
    ///
    /// The pool opens a new reader only for a read that finds every open one busy: so
    /// `maximumReaderCount` reads, each on a thread of its own, hold their readers until all have
    /// one. A read that waits longer than 100 ms gives up, so that a start on a busy machine is
    /// not held up (the readers still missing open as reads need them, as before).
    private func openEveryReader() {
        let count = database.configuration.maximumReaderCount
        let arrived = Mutex(0)
        let finished = DispatchGroup()
        for _ in 0..<count {
            finished.enter()
            Thread.detachNewThread { [database] in
                defer { finished.leave() }
                try? database.read { _ in
                    arrived.withLock { $0 += 1 }
                    let deadline = ContinuousClock.now + .milliseconds(100)
                    while arrived.withLock({ $0 }) < count, ContinuousClock.now < deadline { usleep(1_000) }
                }
            }
        }
        finished.wait()
    }

    /// How long a read may run on the calling thread (`read`, `readByKey`), in periods of
    /// `SQLiteInlineConnection.period` steps of SQLite's virtual machine: 100,000 steps, about a
    /// millisecond here, which is as long as a loop's other connections should wait. The API's
    /// common reads take far fewer: a page of 20 with its total of 1,000 about 3,400 steps, a
    /// page of the newest of 100,000 with its total 2,100, a read by id a few dozen. A read that
    /// goes over is stopped and run again through GRDB's pool, its millisecond lost. Steps, not
    /// time: counting a whole table (`COUNT(*)` without a filter) is one step, though SQLite
    /// reads the table's smallest index to the end for it, so such a read starts on the calling
    /// thread only for a small table (`SQLiteTransaction.fetchObjects`).
    static let inlineStepLimit = 100

    /// How many bytes of primary keys a read on the calling thread may copy out
    /// (`SQLiteTransaction.fetchPrimaryKeys`) before it is stopped and run again through GRDB's
    /// pool, as one over `inlineStepLimit` is: steps count rows, not bytes, and a key is a
    /// client's string of any length. A megabyte is well under a millisecond of copying; the
    /// keys of a long list of ids of 50 KB fitted the step limit in hundreds of megabytes, and
    /// held the loop for as long.
    static let inlineKeyBytes = 1 << 20

    /// How many bytes of stored values a read on the calling thread may decode into objects
    /// before it is stopped and run again through GRDB's pool: a row is a client's object of up
    /// to `limits.max_body_bytes`, one read of it by id a single step. Decoding a megabyte takes a
    /// few milliseconds; an object of ten, and a few hundred reads of it at once, held the loops
    /// for seconds.
    static let inlineValueBytes = 1 << 20

    /// On the calling thread, when the caller's task prefers an executor of its own (an HTTP
    /// connection's event loop) and an inline connection is free, for as long as the read stays
    /// within `inlineStepLimit`; through GRDB's pool otherwise.
    ///
    /// GRDB's asynchronous read hops to a dispatch queue to wait for a reader, then to the reader's
    /// queue, and back: four thread switches, which made pages, expansions and the owner-restricted
    /// list markedly slower (docs/benchmarks.md, "Figures behind design choices"). On the loop, a
    /// read holds up the loop's other connections while it runs, hence the limit. Tasks on Swift's
    /// shared pool (services, the command line) go through GRDB's pool as before: a body that
    /// awaits an actor blocks its thread meanwhile, and with every thread of the shared pool
    /// blocked so, the actor would never run.
    ///
    /// Through GRDB's pool, the wait for a reader happens in a task of Swift's shared pool rather
    /// than on the caller's executor: waiting on the loop made pages and expansions slower. Writes
    /// are the other way round: waiting on the shared pool made creates and updates slower, so
    /// `write` waits where it is called (docs/benchmarks.md, "Figures behind design choices").
    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        if LoopWork.isOnEventLoop, let value = try inline.read(limit: Self.inlineStepLimit, body) { return value }
        return try await withTaskExecutorPreference(globalConcurrentExecutor) { try await self.database.read(body) }
    }

    /// A lookup by key (a row by its primary key or a unique index, and what it expands): on the
    /// calling thread, whichever it is, when an inline connection is free and the read stays
    /// within `inlineStepLimit`; through GRDB's pool otherwise. A lookup by key on the pool's
    /// threads is short, so it never waits there for a reader queue.
    func readByKey<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        if let value = try inline.read(limit: Self.inlineStepLimit, body) { return value }
        return try await withTaskExecutorPreference(globalConcurrentExecutor) { try await self.database.read(body) }
    }

    func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await database.write(body)
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try database.write(body)
    }

    func writeWithoutTransaction<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await database.writeWithoutTransaction(body)
    }

    func close() throws {
        try inline.close()
        try database.close()
    }
}
