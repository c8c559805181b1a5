import GRDB
import GRDBSQLite  // sqlite3_progress_handler, which GRDB does not wrap

/// One read-only connection of `SQLiteInlineReaders`: a read in a snapshot on the calling thread,
/// which SQLite stops once it has run more than a given number of steps of its virtual machine, so
/// that a read on an event loop holds up the loop's other connections for a few milliseconds at
/// most (docs/architecture.md, "The event-loop rule").
///
/// Used by one thread at a time: `SQLiteInlineReaders` hands it out by an atomic bit.
final class SQLiteInlineConnection: @unchecked Sendable {
    /// SQLite calls the progress handler every `period` steps of a statement: often enough to
    /// stop a long read within a few hundred microseconds, rarely enough to cost nothing
    /// measurable (a call every few thousand instructions of SQLite's own).
    static let period: CInt = 1_000

    private let queue: DatabaseQueue
    /// The budget's counters, read by the progress handler through an unretained pointer: it
    /// lives as long as the connection that holds the pointer.
    private let budget = StepBudget()
    /// Where a statement stopped over the budget is noted, shared by the connections of
    /// `SQLiteInlineReaders`.
    private let longStatements: LongStatements

    init(path: String, configuration: Configuration, longStatements: LongStatements) throws {
        self.longStatements = longStatements
        queue = try DatabaseQueue(path: path, configuration: configuration)
        let context = Unmanaged.passUnretained(budget).toOpaque()
        queue.inDatabase { db in
            sqlite3_progress_handler(db.sqliteConnection, Self.period, { context in
                Unmanaged<StepBudget>.fromOpaque(context!).takeUnretainedValue().spend() ? 1 : 0
            }, context)
        }
    }

    /// `body` in a deferred transaction, as GRDB's `read` runs it, but with `BEGIN` and `COMMIT`
    /// compiled once per connection: `read` parses both again on every call, which cost about as
    /// much as the read by key it wrapped (docs/benchmarks.md, "Figures behind design choices").
    /// The snapshot is the same: it starts at the body's first read and holds until the commit,
    /// whatever commits meanwhile. One difference: GRDB's `read` checks its schema cache inside the
    /// transaction, and this does not, so that cache may be stale here; no read of ours uses it
    /// (rows are read by column name, and GRDB's schema introspection runs only in writes: start-up
    /// and index declarations).
    ///
    /// Nil when the body ran more than `limit` periods of steps (SQLite stopped the statement
    /// that went over with `SQLITE_INTERRUPT`, and every statement after it, and whatever the
    /// body made of that, returned or thrown, is thrown away), or threw `LongRead`: the caller
    /// runs the read again where a long read holds up no one.
    func read<T>(limit: Int, _ body: (Database) throws -> T) throws -> T? {
        try queue.inDatabase { db in
            try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
            budget.arm(limit)
            let value: T
            do {
                value = try body(db)
            } catch {
                let exceeded = budget.disarm()
                rollBack(db)
                // GRDB's error names the statement SQLite stopped.
                if exceeded, let sql = (error as? DatabaseError)?.sql { longStatements.remember(sql) }
                if exceeded || error is LongRead { return nil }
                throw error
            }
            if budget.disarm() {
                rollBack(db)
                return nil
            }
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return value
        }
    }

    /// A read leaves nothing to undo: the connection goes back with no transaction open. Only
    /// once the budget is disarmed, or the handler would stop the rollback too.
    private func rollBack(_ db: Database) {
        try? db.cachedStatement(sql: "ROLLBACK TRANSACTION").execute()
    }

    func close() throws {
        try queue.close()
    }

    /// Thrown by a read that knows, before it runs a statement, that the statement would run
    /// long in one step, which the step budget cannot stop, or that finds the rows it copies out
    /// passing the bytes such a read may copy (`SQLitePool.inlineKeyBytes`), which the step
    /// budget does not count: `read` answers nil, as for a read over its budget, and the caller
    /// runs it again where a long read holds up no one.
    struct LongRead: Error {}
}

/// What a read may still spend, in periods of `SQLiteInlineConnection.period` steps.
private final class StepBudget: @unchecked Sendable {
    /// Periods left; unlimited (`Int.max`) between reads, so that the connection's own
    /// statements (`BEGIN`, a rollback) are never stopped.
    private var remaining = Int.max
    private var exceeded = false

    func arm(_ limit: Int) {
        remaining = limit
        exceeded = false
    }

    /// Whether the read went over its budget since `arm`.
    func disarm() -> Bool {
        remaining = Int.max
        return exceeded
    }

    /// One period spent; true to stop the statement under way.
    func spend() -> Bool {
        if remaining > 0 {
            remaining -= 1
            return false
        }
        exceeded = true
        return true
    }
}
