import GRDB
import Synchronization

/// The engine's `DatabasePool`, with its read connections counted, so that a read by key can
/// tell without waiting whether one is free (`readIfFree`).
///
/// The engine and its stores (tokens, push, operators) read and write through here, never
/// through the `DatabasePool` directly (only the engine's start-up does, before anything else
/// reads): a read that bypassed the count could take the connection `readIfFree` counted on.
final class SQLitePool: Sendable {
    let database: DatabasePool
    private let capacity: Int
    private let taken = Atomic(0)

    init(_ database: DatabasePool) {
        self.database = database
        capacity = database.configuration.maximumReaderCount
    }

    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        taken.add(1, ordering: .relaxed)
        defer { taken.subtract(1, ordering: .relaxed) }
        return try await database.read(body)
    }

    /// The read on the calling thread, if a connection is free now; nil, having done nothing,
    /// when none is.
    ///
    /// The calling thread is one of the few of Swift's cooperative pool: if it waited there for
    /// a connection held by slow queries, every request behind it would wait too.
    func readIfFree<T>(_ body: (Database) throws -> T) throws -> T? {
        var current = taken.load(ordering: .relaxed)
        while true {
            guard current < capacity else { return nil }
            let (exchanged, original) = taken.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { break }
            current = original
        }
        defer { taken.subtract(1, ordering: .relaxed) }
        return try database.unsafeRead { db in try Self.inSnapshot(db, body) }
    }

    /// `body` in a deferred transaction, as GRDB's `read` runs it, but with `BEGIN` and `COMMIT`
    /// compiled once per connection: `read` parses both again on every call, which cost about as
    /// much as the read by key it wrapped (issue 19). The snapshot is the same: it starts at the
    /// body's first read and holds until the commit, whatever commits meanwhile. One difference:
    /// `unsafeRead` checks GRDB's schema cache just before the `BEGIN` rather than inside the
    /// transaction, and no read of ours uses that cache (rows are read by column name, and GRDB's
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
        try database.close()
    }
}
