import Foundation
import StackMobCore
@testable import StackMobSQLite
import Testing

/// `readByKey` on SQLite: on the calling thread, on one of the pool's inline connections when
/// one is free, the usual hop when none is, and never waiting on the calling thread.
@Suite("Reads by key")
struct ReadByKeyTests {
    @Test("a read by key never waits: it runs at once while GRDB's readers are all busy, and waits its turn in the pool when the inline connections are busy too")
    func inlineNeverWaits() async throws {
        try await TemporaryDatabase.withEngine { engine, _ in
            // Every reader of GRDB's pool held by a read whose body waits on the latch.
            let pooled = Latch()
            let readers = engine.pool.database.configuration.maximumReaderCount
            let held = (0..<readers).map { _ in
                Task { try await engine.read { _ in pooled.arriveAndWait() } }
            }
            pooled.waitForArrivals(readers)
            // The inline connections are not GRDB's: a read by key on the calling thread neither
            // waits for the pool's readers nor is refused for want of one. Before they existed,
            // it had to wait or hop, and on an event loop a wait could be for the loop itself.
            #expect(try engine.pool.inline.read(limit: .max) { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1)

            // Every inline connection held too, by reads on other threads.
            let inline = Latch()
            for _ in 0..<engine.pool.inline.count {
                DispatchQueue.global().async { _ = try? engine.pool.inline.read(limit: .max) { _ in inline.arriveAndWait() } }
            }
            inline.waitForArrivals(engine.pool.inline.count)
            #expect(try engine.pool.inline.read(limit: .max) { _ in 1 } == nil, "no inline connection is free: the read must not run, nor wait")

            // readByKey falls back to the pool's queue, so it finishes once a reader is released.
            let byKey = Task { try await engine.readByKey { _ in 42 } }
            try await Task.sleep(for: .milliseconds(200))
            pooled.open()
            #expect(try await byKey.value == 42)
            for read in held { try await read.value }
            inline.open()
            // The holders hand their connections back as they finish: wait for the first one.
            var again: Int?
            for _ in 0..<200 where again == nil {
                again = try engine.pool.inline.read(limit: .max) { _ in 2 }
                if again == nil { try await Task.sleep(for: .milliseconds(5)) }
            }
            #expect(again == 2, "an inline connection is free again")
        }
    }

    @Test("the inline connections are read-only")
    func inlineReadOnly() async throws {
        try await TemporaryDatabase.withEngine { engine, _ in
            try await engine.pool.write { db in try db.execute(sql: "CREATE TABLE counted(x)") }
            #expect(throws: (any Error).self) {
                try engine.pool.inline.read(limit: .max) { db in try db.execute(sql: "INSERT INTO counted VALUES (1)") }
            }
            #expect(try engine.pool.inline.read(limit: .max) { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM counted") } == 0)
        }
    }

    @Test("a read on the calling thread sees one snapshot throughout, and one that fails leaves its connection usable")
    func inlineSnapshot() async throws {
        try await TemporaryDatabase.withEngine { engine, _ in
            try await engine.pool.write { db in try db.execute(sql: "CREATE TABLE counted(x); INSERT INTO counted VALUES (1)") }
            let counts = try engine.pool.inline.read(limit: .max) { db -> [Int] in
                let before = try Int.fetchOne(db, sql: "SELECT count(*) FROM counted") ?? -1
                // Another row commits, on the writer's connection, while this read is under way.
                let written = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    try? engine.pool.write { db in try db.execute(sql: "INSERT INTO counted VALUES (2)") }
                    written.signal()
                }
                written.wait()
                let after = try Int.fetchOne(db, sql: "SELECT count(*) FROM counted") ?? -1
                return [before, after]
            }
            #expect(counts == [1, 1], "the second count must come from the same snapshot as the first")
            #expect(try engine.pool.inline.read(limit: .max) { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM counted") } == 2)

            struct Failed: Error {}
            #expect(throws: Failed.self) { try engine.pool.inline.read(limit: .max) { _ -> Int in throw Failed() } }
            // The first free inline connection is taken, the failed read's: it was left with no
            // transaction open, or this read's BEGIN would fail.
            for _ in 0..<3 {
                #expect(try engine.pool.inline.read(limit: .max) { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM counted") } == 2)
                #expect(try engine.pool.inline.read(limit: .max) { db in db.isInsideTransaction } == true)
            }
        }
    }
}

/// Holds read bodies until `open`: they block the GRDB reader threads or the dispatch threads
/// they run on, never a thread of Swift's cooperative pool.
private final class Latch: @unchecked Sendable {
    private let condition = NSCondition()
    private var arrived = 0
    private var isOpen = false

    func arriveAndWait() {
        condition.lock()
        arrived += 1
        condition.broadcast()
        while !isOpen { condition.wait() }
        condition.unlock()
    }

    func waitForArrivals(_ count: Int) {
        condition.lock()
        while arrived < count { condition.wait() }
        condition.unlock()
    }

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }
}
