import Dispatch
import Foundation
import GRDB
import StackMobCore
@testable import StackMobSQLite
import Synchronization
import Testing

/// `read` on SQLite: on the calling thread when the caller's task prefers an executor of its own
/// (an HTTP connection's event loop), within a limit of SQLite's steps; through GRDB's pool
/// otherwise (docs/architecture.md, "The event-loop rule").
@Suite("Reads on the calling thread")
struct InlineReadTests {
    /// A statement of about a million steps of SQLite's virtual machine, ten times the limit,
    /// and its answer.
    static let longSQL = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 100000) SELECT sum(x) FROM n"
    static let longAnswer = 100_000 * 100_001 / 2

    @Test("a read in a task that prefers an executor of its own runs on that executor's thread, on an inline connection")
    func inlineOnThePreferredExecutor() async throws {
        try await TemporaryDatabase.withEngine { engine, _ in
            let executor = QueueExecutor()
            let runs = Runs()
            let answer = try await withTaskExecutorPreference(executor) {
                let caller = CallingThread()
                return try await engine.pool.read { db in
                    runs.note(db, onCaller: caller.isCurrent)
                    return try Int.fetchOne(db, sql: "SELECT 41 + 1")
                }
            }
            #expect(answer == 42)
            #expect(runs.list == [Run(connection: SQLiteInlineReaders.label, onCaller: true)])
        }
    }

    @Test("a read in a task with no executor of its own goes through GRDB's pool")
    func poolWithoutPreference() async throws {
        try await TemporaryDatabase.withEngine { engine, _ in
            let runs = Runs()
            let answer = try await engine.pool.read { db in
                runs.note(db, onCaller: false)
                return try Int.fetchOne(db, sql: "SELECT 42")
            }
            #expect(answer == 42)
            #expect(runs.list.count == 1)
            #expect(runs.list.first?.connection.hasPrefix("GRDB.DatabasePool.reader") == true, "\(runs.list)")
        }
    }

    @Test("a read that goes over the step limit is stopped on the calling thread and run again through GRDB's pool, whatever its body made of the stop")
    func overTheLimitRunsAgainInThePool() async throws {
        try await TemporaryDatabase.withEngine { engine, _ in
            let executor = QueueExecutor()
            for swallowsErrors in [false, true] {
                let runs = Runs()
                let answer = try await withTaskExecutorPreference(executor) {
                    let caller = CallingThread()
                    return try await engine.pool.read { db -> Int in
                        runs.note(db, onCaller: caller.isCurrent)
                        // A body that makes an answer of its own out of the error: thrown away too.
                        guard swallowsErrors else { return try Int.fetchOne(db, sql: Self.longSQL) ?? -1 }
                        do { return try Int.fetchOne(db, sql: Self.longSQL) ?? -1 } catch { return -2 }
                    }
                }
                #expect(answer == Self.longAnswer)
                #expect(runs.list.count == 2, "\(runs.list)")
                #expect(runs.list.first == Run(connection: SQLiteInlineReaders.label, onCaller: true))
                #expect(runs.list.last?.connection.hasPrefix("GRDB.DatabasePool.reader") == true, "\(runs.list)")
            }

            // The stopped reads left their connections with no transaction open and no limit
            // armed: the next reads on them begin, run to the end and see what was committed since.
            try await engine.pool.write { db in try db.execute(sql: "CREATE TABLE later(x); INSERT INTO later VALUES (7)") }
            for _ in 0..<engine.pool.inline.count + 1 {
                let (inTransaction, seven) = try #require(try engine.pool.inline.read(limit: .max) { db in
                    (db.isInsideTransaction, try Int.fetchOne(db, sql: "SELECT x FROM later"))
                })
                #expect(inTransaction && seven == 7)
                #expect(try engine.pool.inline.read(limit: .max) { db in try Int.fetchOne(db, sql: Self.longSQL) } == Self.longAnswer,
                        "a read without a limit is never stopped")
            }
        }
    }

    @Test("a read by key that goes over the step limit (a deep expansion) is stopped on the calling thread and run again through GRDB's pool")
    func readByKeyOverTheLimitRunsAgainInThePool() async throws {
        try await TemporaryDatabase.withEngine { engine, _ in
            let runs = Runs()
            let answer = try await engine.pool.readByKey { db -> Int in
                runs.note(db, onCaller: false)
                return try Int.fetchOne(db, sql: Self.longSQL) ?? -1
            }
            #expect(answer == Self.longAnswer)
            #expect(runs.list.count == 2, "\(runs.list)")
            #expect(runs.list.first?.connection == SQLiteInlineReaders.label)
            #expect(runs.list.last?.connection.hasPrefix("GRDB.DatabasePool.reader") == true, "\(runs.list)")
        }
    }

    @Test("a page with the total of a whole table, one step of SQLite's however large, runs on the calling thread only for a small table")
    func wholeTableTotalOfALargeTableGoesToThePool() async throws {
        try await TemporaryDatabase.withEngine { engine, _ in
            let executor = QueueExecutor()
            let schema = SchemaDefinition(name: "thing", fields: ["title": .string])
            try await engine.write { writer in
                try await writer.evolveSchema(from: nil, to: schema)
            }
            let countedInline: @Sendable () async throws -> Bool = {
                // By the connection, not the thread: a GCD thread that ran the caller may run one
                // of GRDB's readers next.
                try await withTaskExecutorPreference(executor) {
                    try await engine.read { reader in
                        let page = try await reader.fetchObjects(schema, query: ObjectQuery(limit: 20, countsTotal: true))
                        #expect(page.objects.count == 1 && page.total == 1)
                        return Self.isInline(reader)
                    }
                }
            }
            try await engine.pool.write { db in
                try db.execute(sql: "INSERT INTO thing (rowid, thing_id, createddate, lastmoddate) VALUES (1, 'a', 1, 1)")
            }
            #expect(try await countedInline())
            // One row still, but as far along the table's b-tree as a table of 60,000 rows.
            try await engine.pool.write { db in try db.execute(sql: "UPDATE thing SET rowid = 60000") }
            #expect(try await !countedInline())
        }
    }

    @Test("the keys of a long list run on the calling thread only while they copy out little: long keys, few steps of SQLite's, go through GRDB's pool")
    func longKeysGoToThePool() async throws {
        try await TemporaryDatabase.withEngine { engine, _ in
            let executor = QueueExecutor()
            let schema = SchemaDefinition(name: "thing", fields: ["title": .string])
            try await engine.write { writer in
                try await writer.evolveSchema(from: nil, to: schema)
            }
            let keysInline: @Sendable () async throws -> (count: Int, inline: Bool) = {
                try await withTaskExecutorPreference(executor) {
                    try await engine.read { reader in
                        (try await reader.fetchPrimaryKeys(schema, query: ObjectQuery()).count, Self.isInline(reader))
                    }
                }
            }
            // 100 keys of 10 bytes: a few hundred steps and a kilobyte, on the calling thread.
            try await engine.pool.write { db in
                try db.execute(sql: """
                    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 100)
                    INSERT INTO thing (thing_id, createddate, lastmoddate) SELECT printf('k%09d', x), x, x FROM n
                    """)
            }
            #expect(try await keysInline() == (100, true))
            // 200 more keys of 50,000 bytes: a few thousand steps, far under the step limit,
            // but 10 MB copied out. Before the bytes counted, all of it on the calling thread.
            try await engine.pool.write { db in
                try db.execute(sql: """
                    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 200)
                    INSERT INTO thing (thing_id, createddate, lastmoddate) SELECT printf('l%09d', x) || replace(hex(zeroblob(24995)), '00', 'ab'), x, x FROM n
                    """)
            }
            #expect(try await keysInline() == (300, false))
        }
    }

    @Test("objects are decoded on the calling thread only while their stored values are within a megabyte: a large object, one step of SQLite's, goes through GRDB's pool")
    func largeObjectsGoToThePool() async throws {
        try await TemporaryDatabase.withEngine { engine, _ in
            let executor = QueueExecutor()
            let schema = SchemaDefinition(name: "thing", fields: ["title": .string])
            try await engine.write { writer in
                try await writer.evolveSchema(from: nil, to: schema)
            }
            let readInline: @Sendable (String) async throws -> (length: Int?, inline: Bool) = { id in
                try await withTaskExecutorPreference(executor) {
                    try await engine.read { reader in
                        let object = try await reader.fetchObject(schema, id: id)
                        return (object?["title"]?.stringValue?.utf8.count, Self.isInline(reader))
                    }
                }
            }
            let pageInline: @Sendable () async throws -> (count: Int, inline: Bool) = {
                try await withTaskExecutorPreference(executor) {
                    try await engine.read { reader in
                        (try await reader.fetchObjects(schema, query: ObjectQuery(limit: 10)).objects.count, Self.isInline(reader))
                    }
                }
            }
            // An object of 100 KB, and one of 2 MB: one step each.
            try await engine.pool.write { db in
                try db.execute(sql: """
                    INSERT INTO thing (thing_id, title, createddate, lastmoddate) VALUES
                    ('small', replace(hex(zeroblob(50000)), '00', 'ab'), 1, 1),
                    ('large', replace(hex(zeroblob(1000000)), '00', 'ab'), 2, 2)
                    """)
            }
            #expect(try await readInline("small") == (100_000, true))
            #expect(try await readInline("large") == (2_000_000, false))
            // A page of both: past the megabyte on its second row.
            #expect(try await pageInline() == (2, false))
        }
    }

    @Test("a page whose statement went over the step limit before goes through GRDB's pool at once, and is tried on the calling thread again now and then")
    func longStatementGoesToThePoolAtOnce() async throws {
        try await TemporaryDatabase.withEngine { engine, _ in
            let executor = QueueExecutor()
            let schema = SchemaDefinition(name: "thing", fields: ["grade": .integer])
            try await engine.write { writer in
                try await writer.evolveSchema(from: nil, to: schema)
            }
            // 15,000 rows: a scan of them with an OR of two ranges and its total is about 190,000
            // steps, over the limit; with 100 rows it is a few thousand.
            try await engine.pool.write { db in
                try db.execute(sql: """
                    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 15000)
                    INSERT INTO thing (thing_id, createddate, lastmoddate, grade) SELECT 'id' || x, x, x, x % 100 FROM n
                    """)
            }
            let filter = TypedFilter.any([
                .condition(TypedCondition(field: "grade", target: .scalar, operation: .lessThan(25))),
                .condition(TypedCondition(field: "grade", target: .scalar, operation: .greaterThan(75))),
            ])
            let query = ObjectQuery(filter: filter, order: [SortKey(field: "grade", ascending: false)], limit: 20, countsTotal: true)
            let page: @Sendable () async throws -> ObjectPage = {
                try await withTaskExecutorPreference(executor) {
                    try await engine.read { try await $0.fetchObjects(schema, query: query) }
                }
            }
            let long = engine.pool.inline.longStatements
            let first = try await page()
            #expect(first.total == 7_350 && first.objects.count == 20)
            #expect(long.stops == 1, "the first read is stopped on the calling thread")
            for _ in 1..<LongStatements.probeInterval {
                #expect(try await page() == first)
            }
            #expect(long.stops == 1, "the reads after it went to the pool without spending the budget first")
            #expect(try await page() == first)
            #expect(long.stops == 2, "one read in probeInterval tries the calling thread again")

            // Once the statement runs within the limit, it is forgotten: every read stays on the
            // calling thread again.
            try await engine.pool.write { db in try db.execute(sql: "DELETE FROM thing WHERE rowid > 100") }
            for _ in 0...LongStatements.probeInterval {
                _ = try await page()
            }
            #expect(long.stops == 2)
            #expect(long.isEmpty)
        }
    }

    /// Whether `reader` reads on one of the inline connections, which run on the calling thread.
    static func isInline(_ reader: any StorageReader) -> Bool {
        (reader as? SQLiteTransaction)?.db.configuration.label == SQLiteInlineReaders.label
    }

    @Test("the engine's read runs its body, the domain's async work, on the calling thread too")
    func engineReadInline() async throws {
        try await TemporaryDatabase.withEngine { engine, _ in
            let executor = QueueExecutor()
            let (onCaller, onExecutor) = try await withTaskExecutorPreference(executor) {
                let caller = CallingThread()
                return (try await engine.read { _ in caller.isCurrent }, executor.isCurrent)
            }
            #expect(onCaller, "the engine's read ran its body away from the calling thread")
            #expect(onExecutor, "the task went on on its executor")
        }
    }
}

/// Where a read body ran: which connection (`Database.description`), and whether on the thread
/// that called `read`.
private struct Run: Equatable, CustomStringConvertible {
    let connection: String
    let onCaller: Bool
    var description: String { "\(connection)\(onCaller ? " on the calling thread" : "")" }
}

private final class Runs: Sendable {
    private let runs = Mutex<[Run]>([])
    var list: [Run] { runs.withLock { $0 } }

    func note(_ db: Database, onCaller: Bool) {
        runs.withLock { $0.append(Run(connection: db.description, onCaller: onCaller)) }
    }
}

/// The thread that made it. A read body on an inline connection runs within GRDB's
/// `DatabaseQueue.inDatabase`, a `sync` on GRDB's own queue: the calling thread, but another
/// dispatch queue, so the thread is compared rather than the queue.
private struct CallingThread: @unchecked Sendable {
    private let thread = pthread_self()
    var isCurrent: Bool { pthread_equal(thread, pthread_self()) != 0 }
}

/// A task executor of its own, as an event loop is one: its jobs run on one serial dispatch queue.
private final class QueueExecutor: TaskExecutor, @unchecked Sendable {
    private let queue = DispatchQueue(label: "InlineReadTests.executor")
    private let key = DispatchSpecificKey<Bool>()

    init() {
        queue.setSpecific(key: key, value: true)
    }

    /// Whether the calling code runs on this executor's queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
