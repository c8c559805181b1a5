import Foundation
import StackMobCore
@testable import StackMobSQLite
import Testing

/// `readByKey` on SQLite: on the calling thread when a read connection is free, the usual hop
/// when none is, and never waiting on the calling thread for one.
@Suite("Reads by key")
struct ReadByKeyTests {
    @Test("a read by key runs at once when a connection is free, and waits its turn in the pool when every one is busy")
    func inlineOnlyWhenFree() async throws {
        try await TemporaryDatabase.withEngine { engine, _ in
            let readers = engine.pool.database.configuration.maximumReaderCount
            #expect(try engine.pool.readIfFree { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1)

            // Every connection held by a read whose body waits on the latch.
            let latch = Latch()
            let held = (0..<readers).map { _ in
                Task { try await engine.read { _ in latch.arriveAndWait() } }
            }
            latch.waitForArrivals(readers)
            #expect(try engine.pool.readIfFree { _ in 1 } == nil, "no connection is free: the read must not run, nor wait")

            // readByKey falls back to the pool's queue, so it finishes once a connection is released.
            let byKey = Task { try await engine.readByKey { _ in 42 } }
            try await Task.sleep(for: .milliseconds(200))
            latch.open()
            #expect(try await byKey.value == 42)
            for read in held { try await read.value }
            #expect(try engine.pool.readIfFree { _ in 2 } == 2, "every connection is counted as free again")
        }
    }

    @Test("a read on the calling thread sees one snapshot throughout, and one that fails leaves its connection usable")
    func inlineSnapshot() async throws {
        try await TemporaryDatabase.withEngine { engine, _ in
            try await engine.pool.write { db in try db.execute(sql: "CREATE TABLE counted(x); INSERT INTO counted VALUES (1)") }
            let counts = try engine.pool.readIfFree { db -> [Int] in
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
            #expect(try engine.pool.readIfFree { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM counted") } == 2)

            struct Failed: Error {}
            #expect(throws: Failed.self) { try engine.pool.readIfFree { _ -> Int in throw Failed() } }
            // GRDB hands out the first free connection, the failed read's: it was left with no
            // transaction open, or this read's BEGIN would fail.
            for _ in 0..<3 {
                #expect(try engine.pool.readIfFree { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM counted") } == 2)
                #expect(try engine.pool.readIfFree { db in db.isInsideTransaction } == true)
            }
        }
    }
}

/// Holds read bodies until `open`: they block the GRDB reader threads they run on, never a
/// thread of Swift's cooperative pool.
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
