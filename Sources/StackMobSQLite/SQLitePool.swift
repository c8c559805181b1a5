import GRDB

/// The engine's `DatabasePool`, and a few connections beside it for reads by key on the calling
/// thread (`readIfFree`).
///
/// The engine and its stores (tokens, push, operators) read and write through here, never
/// through the `DatabasePool` directly (only the engine's start-up does, before anything else
/// reads).
final class SQLitePool: Sendable {
    let database: DatabasePool
    let inline: SQLiteInlineReaders

    /// - Parameter inlineReaders: connections for `readIfFree`: as many as threads that may run
    ///   a request at once (the event loops, one per core).
    init(_ database: DatabasePool, inlineReaders: Int) throws {
        self.database = database
        inline = try SQLiteInlineReaders(path: database.path, configuration: database.configuration, count: inlineReaders)
    }

    /// The wait for a reader happens in a task of Swift's shared pool, rather than on the
    /// executor the caller prefers (an HTTP connection's event loop). Waiting on the loop made a
    /// page of 20 and an expansion 4–6% slower in a bench run. Writes are the other way round:
    /// waiting on the shared pool made creates and updates 14–24% slower (issue 19), so `write`
    /// waits where it is called. Reads by key do not wait at all (`readIfFree`).
    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await withTaskExecutorPreference(globalConcurrentExecutor) { try await self.database.read(body) }
    }

    /// The read on the calling thread, if one of the inline connections is free now; nil, having
    /// done nothing, when none is. Never waits for a connection (`SQLiteInlineReaders`).
    func readIfFree<T>(_ body: (Database) throws -> T) throws -> T? {
        try inline.withFreeConnection { db in try Self.inSnapshot(db, body) }
    }

    /// `body` in a deferred transaction, as GRDB's `read` runs it, but with `BEGIN` and `COMMIT`
    /// compiled once per connection: `read` parses both again on every call, which cost about as
    /// much as the read by key it wrapped (issue 19). The snapshot is the same: it starts at the
    /// body's first read and holds until the commit, whatever commits meanwhile. One difference:
    /// GRDB's `read` checks its schema cache inside the transaction, and this does not, so that
    /// cache may be stale here; no read of ours uses it (rows are read by column name, and GRDB's
    /// schema introspection runs only in writes: start-up and index declarations).
    static func inSnapshot<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
        do {
            let value = try body(db)
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return value
        } catch {
            // A read leaves nothing to undo: the connection goes back with no transaction open.
            try? db.cachedStatement(sql: "ROLLBACK TRANSACTION").execute()
            throw error
        }
    }

    /// A lookup by key (a row by its primary key or a unique index): on the calling thread when a
    /// connection is free (`readIfFree`), through the pool's queue when none is.
    func readByKey<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        if let value = try readIfFree(body) { return value }
        return try await read(body)
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
