import Synchronization

/// At most `width` callers inside `run` at a time; the others wait for a turn in the order they
/// came, suspended, holding no thread. In front of work that holds a thread of its own while it
/// waits (`ThreadOfItsOwn`), so that many callers at once cost that many waiting tasks, not that
/// many threads.
///
/// A caller cancelled while it waits leaves the line and throws `CancellationError`: a request
/// that timed out or whose client left sheds its work instead of adding it. Once in, the body
/// runs to its end: work that must not half happen (a file the object's commit names) is not
/// cut short.
public final class ConcurrencyLimit: Sendable {
    public let width: Int
    private let state: Mutex<State>

    private struct State {
        var running = 0
        /// First come, first in. Shifting the array costs little beside the work waited for.
        var waiting: [(id: UInt64, turn: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
    }

    public init(width: Int) {
        precondition(width > 0, "a limit lets at least one in")
        self.width = width
        state = Mutex(State())
    }

    public func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await enter()
        defer { leave() }
        return try await body()
    }

    /// Callers waiting for a turn now.
    public var waiting: Int { state.withLock { $0.waiting.count } }

    private func enter() async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (turn: CheckedContinuation<Void, any Error>) in
                let admitted: Bool? = state.withLock { state in
                    // Cancelled before it could queue: the handler below found nothing to remove.
                    if Task.isCancelled { return nil }
                    guard state.running < width else {
                        state.waiting.append((id, turn))
                        return false
                    }
                    state.running += 1
                    return true
                }
                switch admitted {
                case true?: turn.resume()
                case false?: break
                case nil: turn.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let left = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index).turn
            }
            left?.resume(throwing: CancellationError())
        }
    }

    /// Hands the turn to the first who waits, or gives it back.
    private func leave() {
        let successor = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst().turn
        }
        successor?.resume()
    }
}
