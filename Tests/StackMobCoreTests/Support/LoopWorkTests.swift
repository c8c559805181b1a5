import Foundation
@testable import StackMobCore
import Synchronization
import Testing

/// `LoopWork`: work that outgrew an event loop is done again on `LoopWork.threads`, which count
/// as no loop, and which run every job they are given.
@Suite("Work that outgrows an event loop")
struct LoopWorkTests {
    /// Stands for an event loop: a task executor other than the shared pool and the work threads.
    static let loop = WorkerThreads(count: 1, name: "test-loop")

    @Test("outgrown work on a loop is done again on the work threads, where it is not on a loop; off a loop it is done once, where it runs")
    func outgrownWorkMoves() async throws {
        let tries = Mutex<[Bool]>([])
        let body: () async throws -> Bool = {
            let onLoop = LoopWork.isOnEventLoop
            tries.withLock { $0.append(onLoop) }
            if onLoop { throw LoopWork.Outgrown() }
            // What the work asks for: the threads (which thread the runtime then picks is its own).
            return withUnsafeCurrentTask { $0?.unownedTaskExecutor == LoopWork.threads.asUnownedTaskExecutor() }
        }
        let onWorkThread = try await withTaskExecutorPreference(Self.loop) { try await LoopWork.offTheLoopWhenOutgrown(body) }
        #expect(tries.withLock { $0 } == [true, false])
        #expect(onWorkThread)
        tries.withLock { $0 = [] }
        #expect(try await !LoopWork.offTheLoopWhenOutgrown(body))
        #expect(tries.withLock { $0 } == [false])
    }

    @Test("the work threads run every task given them, many at once, each to its end")
    func everyJobRuns() async throws {
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 1...1_000 {
                group.addTask(executorPreference: LoopWork.threads) {
                    // Suspends and resumes on the threads: each resumption is a job of its own.
                    await Task.yield()
                    return n
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(total == 500_500)
    }
}
