import Synchronization

/// A check each caller needs started after it arrived, one run shared by the callers that
/// arrive while another runs.
///
/// Why: every request on a shared database (PostgreSQL, several instances) must see the schema
/// and permission changes committed before it arrived, so it needs a read of the schema version
/// sent after its arrival. A read already in flight cannot serve it (its answer may predate the
/// change), but the next one can: while a run is in flight, arriving callers wait for the run
/// after it, which one of them starts as soon as the first ends. Under load one round trip serves
/// every request that arrived during the previous one; a lone request pays one round trip, as it
/// would alone. Only one run is in flight at a time, so a run that finds a change has applied
/// all of it before any later caller's run starts.
public final class SharedCheck<Value: Sendable>: Sendable {
    private enum Turn: Sendable {
        case run(Int)
        case answered(Result<Value, any Error>)
    }

    private struct Waiter {
        /// The first run that started after this caller arrived.
        var run: Int
        let continuation: CheckedContinuation<Turn, Never>
    }

    private struct State: ~Copyable {
        var running: Int?
        var started = 0
        var waiters: [Waiter] = []

        /// The number of the run the caller starts, when none is in flight.
        mutating func startIfIdle() -> Int? {
            guard running == nil else { return nil }
            started += 1
            running = started
            return started
        }
    }

    private let state = Mutex(State())
    private let check: @Sendable () async throws -> Value

    public init(_ check: @escaping @Sendable () async throws -> Value) {
        self.check = check
    }

    /// The answer of a run that started after this call did.
    public func value() async throws -> Value {
        let turn: Turn
        if let run = state.withLock({ $0.startIfIdle() }) {
            turn = .run(run)
        } else {
            turn = await withCheckedContinuation { continuation in
                let run = state.withLock { state -> Int? in
                    if let run = state.startIfIdle() { return run }
                    state.waiters.append(Waiter(run: state.running! + 1, continuation: continuation))
                    return nil
                }
                if let run { continuation.resume(returning: .run(run)) }
            }
        }
        switch turn {
        case .answered(let result):
            return try result.get()
        case .run(let run):
            let result: Result<Value, any Error>
            do { result = .success(try await check()) } catch { result = .failure(error) }
            finish(run, with: result)
            return try result.get()
        }
    }

    /// Callers waiting for a run (tests wait for them to queue up).
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Answers the callers that waited for `run` and starts the next run for those that arrived
    /// during it. A run cut short by cancellation answers nobody: the waiters were not
    /// cancelled, so one of them runs the check again for all of them. (A waiter's own
    /// cancellation is not awaited early: it waits at most for the next run, as it would have
    /// run the check itself.)
    private func finish(_ run: Int, with result: Result<Value, any Error>) {
        var cancelled = false
        if case .failure(let error) = result { cancelled = Task.isCancelled || error is CancellationError }
        let (answered, next) = state.withLock { state -> ([Waiter], (Waiter, Int)?) in
            state.running = nil
            var answered: [Waiter] = []
            if !cancelled {
                answered = state.waiters.filter { $0.run <= run }
                state.waiters.removeAll { $0.run <= run }
            }
            guard !state.waiters.isEmpty, let next = state.startIfIdle() else { return (answered, nil) }
            let runner = state.waiters.removeFirst()
            // Every waiter left arrived before `next` starts, so `next` answers it.
            for index in state.waiters.indices { state.waiters[index].run = next }
            return (answered, (runner, next))
        }
        for waiter in answered { waiter.continuation.resume(returning: .answered(result)) }
        if let (runner, number) = next { runner.continuation.resume(returning: .run(number)) }
    }
}
