import Synchronization

/// At most `width` callers inside `run` at a time; the others wait for a turn in the order they
/// came, suspended, holding no thread. In front of work that holds a thread of its own while it
/// waits (`ThreadOfItsOwn`), so that many callers at once cost that many waiting tasks, not that
/// many threads.
///
/// A caller cancelled while it waits still waits for its turn, then runs: the wait is as long as
/// the work before it, which is bounded, and work that must not half happen (a file the object's
/// commit names) is not cut short.
public final class ConcurrencyLimit: Sendable {
    public let width: Int
    private let state: Mutex<State>

    private struct State {
        var running = 0
        /// First come, first in. Shifting the array costs little beside the work waited for.
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    public init(width: Int) {
        precondition(width > 0, "a limit lets at least one in")
        self.width = width
        state = Mutex(State())
    }

    public func run<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        await enter()
        defer { leave() }
        return try await body()
    }

    /// Callers waiting for a turn now.
    public var waiting: Int { state.withLock { $0.waiting.count } }

    private func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state in
                guard state.running < width else {
                    state.waiting.append(continuation)
                    return false
                }
                state.running += 1
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    /// Hands the turn to the first who waits, or gives it back.
    private func leave() {
        let successor = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        successor?.resume()
    }
}
