/// Work whose size a request decides, done on an event loop only while it stays small
/// (docs/architecture.md, "The event-loop rule").
///
/// An HTTP connection's requests run on its event loop, where the loop's other connections wait
/// while one works. Work that grows with what a request asks for (an expansion's related objects,
/// its text) starts there anyway: nearly all of it is small, and a move to another thread and
/// back costs more than it does. Past a small bound it stops with `Outgrown`, and is done again,
/// whole, on Swift's shared pool (`offTheLoopWhenOutgrown`); what the first try did, at most the
/// bound's worth, is lost.
public enum LoopWork {
    /// Thrown by work on an event loop that passed its bound there, to be done again off it.
    public struct Outgrown: Error {
        public init() {}
    }

    /// Whether the current task prefers an executor other than Swift's shared pool: an HTTP
    /// connection's event loop (or, inside a SQLite transaction, its connection's thread, which
    /// is why callers ask before a transaction begins).
    public static var isOnEventLoop: Bool {
        withUnsafeCurrentTask { task in
            guard let executor = task?.unownedTaskExecutor else { return false }
            return executor != globalConcurrentExecutor.asUnownedTaskExecutor()
        }
    }

    /// `body`'s result; when it throws `Outgrown` on an event loop, `body`'s again, run on Swift's
    /// shared pool, where `isOnEventLoop` is false and the work has no bound to pass.
    public static func offTheLoopWhenOutgrown<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch is Outgrown where isOnEventLoop {
            return try await withTaskExecutorPreference(globalConcurrentExecutor) { try await body() }
        }
    }
}
