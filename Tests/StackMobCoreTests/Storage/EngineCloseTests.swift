import Dispatch
import Foundation
import StackMobCore
import StackMobSQLite
import Synchronization
import Testing

/// Closing SQLite engines while reads are under way: what a server's shutdown and every test's
/// end do.
@Suite("SQLite: closing while reads are under way")
struct EngineCloseTests {
    @Test("more engines than cores, each closed while a read through GRDB's pool holds a connection: every close waits for its read, and none holds a thread of Swift's shared pool meanwhile")
    func closesWhileReading() async throws {
        // A close waits for the pool's readers, and a read gives its reader back once its task
        // has resumed on Swift's shared pool, which is as wide as the machine has cores. Closes
        // that waited on that pool, as many as it has threads, left the reads no thread to finish
        // on: nothing ran on the pool again, this test included. So a watchdog on a thread of its
        // own ends the process with the reason rather than let the run hang.
        let engines = ProcessInfo.processInfo.activeProcessorCount * 4
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            if finished.wait(timeout: .now() + 60) == .timedOut {
                fatalError("\(engines) engines closed while reading did not finish within 60 s: a close blocks Swift's shared pool")
            }
        }
        defer { finished.signal() }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stackmob-close-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var opened: [SQLiteStorageEngine] = []
        for index in 0..<engines {
            opened.append(try await SQLiteStorageEngine.open(path: "\(directory)/\(index).sqlite", durability: .normal, registry: SchemaRegistry()))
        }
        let started = StartedReads()
        let reads = opened.map { engine in
            // A task of the shared pool: its read goes through GRDB's pool (`SQLitePool.read`).
            Task.detached {
                try await engine.read { _ in
                    started.count.add(1, ordering: .relaxed)
                    // Holds the connection, on the reader's thread, while the closes begin.
                    usleep(300_000)
                }
            }
        }
        while started.count.load(ordering: .relaxed) < engines { try await Task.sleep(for: .milliseconds(5)) }
        try await withThrowingDiscardingTaskGroup { group in
            for engine in opened { group.addTask { try await engine.close() } }
        }
        for read in reads { try await read.value }
    }
}

private final class StartedReads: Sendable {
    let count = Atomic(0)
}
