import Foundation

/// Runs an async transaction body on the thread that holds a SQLite connection.
///
/// GRDB hands out a connection only inside a synchronous closure on its own dispatch queue, while
/// the storage boundary is async (a PostgreSQL transaction answers asynchronously). Hopping to
/// another thread for each storage call would cost two context switches per call on the hottest
/// path, so the body runs here instead: a task whose executor preference is this object, whose
/// jobs this thread runs one after another until the body returns. Nonisolated async code, the
/// whole domain side of a transaction, then stays on the connection's thread; a hop to an actor
/// and back comes back here. SQLite work is fast and local, so blocking this thread while the
/// body awaits is what GRDB does for every closure anyway.
final class ConnectionExecutor: TaskExecutor, @unchecked Sendable {
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` to completion on the calling thread and returns what it returned.
    ///
    /// The value goes through a slot of `T`'s own: `T` is known only at run time (the storage's
    /// generic `read` and `write` are called through their protocol), and a `Result<T, Error>`
    /// looked its type up at run time four times a call (docs/benchmarks.md, "Figures behind design
    /// choices").
    static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let executor = ConnectionExecutor()
        let slot = UnsafeMutablePointer<T>.allocate(capacity: 1)
        defer { slot.deallocate() }
        let outcome = Outcome(slot: UnsafeMutableRawPointer(slot))
        Task(executorPreference: executor) {
            do {
                outcome.slot.assumingMemoryBound(to: T.self).initialize(to: try await body())
            } catch {
                outcome.failure = error
            }
            executor.finish()
        }
        executor.drain()
        // `finish` ran on this thread, after the body: the slot or the failure is set and
        // visible here.
        if let failure = outcome.failure { throw failure }
        return slot.move()
    }

    private func finish() {
        condition.lock()
        finished = true
        condition.unlock()
    }

    /// Runs jobs as they arrive until the body has finished.
    private func drain() {
        let unowned = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: unowned) }
        }
    }

    /// Written by the task, read by the draining thread after the task's last job ran on it.
    private final class Outcome: @unchecked Sendable {
        /// Where the body's value goes: a `T` the caller allocated, and moves out once it is set.
        let slot: UnsafeMutableRawPointer
        var failure: (any Error)?

        init(slot: UnsafeMutableRawPointer) {
            self.slot = slot
        }
    }
}
