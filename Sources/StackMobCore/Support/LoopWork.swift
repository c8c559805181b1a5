import Foundation

/// Work whose size a request decides, done on an event loop only while it stays small
/// (docs/architecture.md, "The event-loop rule").
///
/// An HTTP connection's requests run on its event loop, where the loop's other connections wait
/// while one works. Work that grows with what a request asks for (an expansion's related objects,
/// its text) starts there anyway: nearly all of it is small, and a move to another thread and
/// back costs more than it does. Past a small bound it stops with `Outgrown`, and is done again,
/// whole, on `threads` (`offTheLoopWhenOutgrown`); what the first try did, at most the bound's
/// worth, is lost.
public enum LoopWork {
    /// Where work that outgrew a loop, and other work a request's size decides, is done: threads
    /// of their own, one a core, apart from Swift's shared pool (`WorkerThreads` says why). One
    /// for the process, as the loops and the shared pool are; started when first used.
    public static let threads = WorkerThreads(count: ProcessInfo.processInfo.activeProcessorCount, name: "stackmob-work")

    /// Thrown by work on an event loop that passed its bound there, to be done again off it.
    public struct Outgrown: Error {
        public init() {}
    }

    /// Whether the current task prefers an executor other than Swift's shared pool and
    /// `threads`: an HTTP connection's event loop (or, inside a SQLite transaction, its
    /// connection's thread, which is why callers ask before a transaction begins).
    public static var isOnEventLoop: Bool {
        withUnsafeCurrentTask { task in
            guard let executor = task?.unownedTaskExecutor else { return false }
            return executor != globalConcurrentExecutor.asUnownedTaskExecutor() && executor != threads.asUnownedTaskExecutor()
        }
    }

    /// `body`'s result; when it throws `Outgrown` on an event loop, `body`'s again, run on
    /// `threads`, where `isOnEventLoop` is false and the work has no bound to pass.
    public static func offTheLoopWhenOutgrown<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch is Outgrown where isOnEventLoop {
            return try await withTaskExecutorPreference(threads) { try await body() }
        }
    }
}
