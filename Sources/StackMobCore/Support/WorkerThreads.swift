import Dispatch
import Foundation
import Synchronization

/// A task executor on threads of its own, jobs taken in the order they came: for the work a
/// request's size decides once it outgrows an event loop (`LoopWork.threads`).
///
/// Not Swift's shared pool: that pool has one thread a core, and everything a request needs
/// whatever its size waits on it, a new connection's start (Hummingbird starts each on it), the
/// actors of the failure limits and of the password gate, the continuations of every await. A
/// few hundred expansions of a megabyte of ids each would fill it for seconds, and a login on
/// another connection would wait that long to begin. Here they queue among themselves, and the
/// kernel shares the cores between these threads, the loops and the pool.
public final class WorkerThreads: TaskExecutor, Sendable {
    private let jobs = Mutex(Jobs())
    /// Counts the jobs queued: a thread takes one for each `wait()`.
    private let queued = DispatchSemaphore(value: 0)

    /// The queue, a list read from `head` and compacted once half of it is spent.
    private struct Jobs: ~Copyable {
        var list: [UnownedJob] = []
        var head = 0

        mutating func append(_ job: UnownedJob) {
            list.append(job)
        }

        mutating func removeFirst() -> UnownedJob {
            let job = list[head]
            head += 1
            if head >= 1_024, head * 2 >= list.count {
                list.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    /// Starts `count` threads named `name-0`, `name-1`…, which run for the rest of the process.
    public init(count: Int, name: String) {
        for index in 0..<max(1, count) {
            // Named from the thread itself: on Linux a name given before the start is not the
            // system's, and the thread would keep its creator's (a profiler's, a debugger's).
            Thread { [self] in self.run(named: "\(name)-\(index)") }.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        queued.signal()
    }

    private func run(named name: String) {
        Thread.current.name = name
        let executor = asUnownedTaskExecutor()
        while true {
            queued.wait()
            let job = jobs.withLock { $0.removeFirst() }
            job.runSynchronously(on: executor)
        }
    }
}
