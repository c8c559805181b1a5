import NIOCore

/// A task executor that runs its jobs on one NIO event loop.
///
/// A connection's task prefers the loop its socket is on (`HTTP1Connection`), so that reading a
/// request, answering it and writing the response happen on one thread. Without a preference, every
/// request crossed from the loop to Swift's cooperative pool and back, a large share of a read by
/// id's server CPU (docs/benchmarks.md, "Figures behind design choices").
///
/// What runs here must not wait for other threads: a job that blocks stalls every connection
/// on the loop. Code that may block or compute for long (a database connection's queue,
/// password hashing) runs elsewhere and is awaited.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
