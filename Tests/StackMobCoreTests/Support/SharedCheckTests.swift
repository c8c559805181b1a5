import Synchronization
import Testing

@testable import StackMobCore

/// `SharedCheck`: each caller gets the answer of a run that started after it arrived, and the
/// callers that arrive together share one run (the schema version check on PostgreSQL).
@Suite("Shared check")
struct SharedCheckTests {
    @Test("callers arriving during a run share the next run, never the one in flight")
    func arrivalsShareTheNextRun() async throws {
        let gate = RunGate()
        let check = SharedCheck { try await gate.pass() }
        async let first = check.value()
        try await gate.waitUntilStarted(1)
        let later = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 { group.addTask { try await check.value() } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        try await eventually { check.waiting == 20 }
        gate.release(1)
        #expect(try await first == 1)
        try await gate.waitUntilStarted(2)
        gate.release(2)
        #expect(try await later.value == Array(repeating: 2, count: 20))
        #expect(gate.started == 2)
    }

    @Test("a failed run answers its callers with the error; the next caller runs again")
    func failureReachesItsCallers() async throws {
        let gate = RunGate(failing: [2])
        let check = SharedCheck { try await gate.pass() }
        async let first = check.value()
        try await gate.waitUntilStarted(1)
        // Two callers wait for run 2: one runs it, the other is answered by it.
        let waiting = (0..<2).map { _ in Task { try await check.value() } }
        try await eventually { check.waiting == 2 }
        gate.release(1)
        #expect(try await first == 1)
        try await gate.waitUntilStarted(2)
        gate.release(2)
        for caller in waiting {
            await #expect(throws: RunGate.Failure.self) { try await caller.value }
        }
        async let third = check.value()
        try await gate.waitUntilStarted(3)
        gate.release(3)
        #expect(try await third == 3)
        #expect(gate.started == 3)
    }

    @Test("a runner's cancellation is not its waiters': one of them runs the check again")
    func cancelledRunner() async throws {
        let gate = RunGate()
        let check = SharedCheck { try await gate.pass() }
        async let first = check.value()
        try await gate.waitUntilStarted(1)
        // Both wait for run 2, which the first of them runs; the second is left waiting on it.
        let runner = Task { try await check.value() }
        try await eventually { check.waiting == 1 }
        let waiter = Task { try await check.value() }
        try await eventually { check.waiting == 2 }
        gate.release(1)
        #expect(try await first == 1)
        try await gate.waitUntilStarted(2)
        runner.cancel()
        await #expect(throws: CancellationError.self) { try await runner.value }
        try await gate.waitUntilStarted(3)
        gate.release(3)
        #expect(try await waiter.value == 3)
    }
}

/// Runs numbered in the order they start, each held until released (or cancelled).
private final class RunGate: Sendable {
    struct Failure: Error {}
    private struct State {
        var started = 0
        var released: Set<Int> = []
    }
    private let state = Mutex(State())
    private let failing: Set<Int>

    init(failing: Set<Int> = []) {
        self.failing = failing
    }

    var started: Int { state.withLock { $0.started } }

    func pass() async throws -> Int {
        let run = state.withLock { state in
            state.started += 1
            return state.started
        }
        try await eventually { self.state.withLock { $0.released.contains(run) } }
        if failing.contains(run) { throw Failure() }
        return run
    }

    func release(_ run: Int) {
        _ = state.withLock { $0.released.insert(run) }
    }

    func waitUntilStarted(_ run: Int) async throws {
        try await eventually { self.started >= run }
    }
}

/// Waits for `condition`, checking every millisecond for 10 seconds at most.
private func eventually(_ condition: @Sendable () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
        try #require(ContinuousClock.now < deadline, "timed out")
        try await Task.sleep(for: .milliseconds(1))
    }
}
