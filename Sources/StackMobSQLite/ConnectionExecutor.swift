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
    static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let executor = ConnectionExecutor()
        let outcome = Outcome<T>()
        Task(executorPreference: executor) {
            do {
                outcome.result = .success(try await body())
            } catch {
                outcome.result = .failure(error)
            }
            executor.finish()
        }
        executor.drain()
        // `finish` ran on this thread, after the body: the result is set and visible here.
        return try outcome.result!.get()
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
    private final class Outcome<T>: @unchecked Sendable {
        var result: Result<T, any Error>?
    }
}
