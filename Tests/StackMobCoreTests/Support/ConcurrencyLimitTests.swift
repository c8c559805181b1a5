import Foundation
import Synchronization
import Testing

@testable import StackMobCore

@Suite("ConcurrencyLimit: at most its width inside at once, the others in order of arrival")
struct ConcurrencyLimitTests {
    /// Lets the tasks that wait on it go, once.
    final class Gate: Sendable {
        private let stream: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation

        init() {
            (stream, continuation) = AsyncStream.makeStream()
        }

        func wait() async {
            for await _ in stream {}
        }

        func open() {
            continuation.finish()
        }
    }

    /// A value the test's tasks share.
    final class Shared<Value: Sendable>: Sendable {
        private let value: Mutex<Value>

        init(_ value: Value) {
            self.value = Mutex(value)
        }

        func withLock<R: Sendable>(_ body: (inout sending Value) -> sending R) -> R {
            value.withLock(body)
        }
    }

    /// Waits until `condition` holds, five seconds at most; a condition that never holds is
    /// recorded as the failure it is.
    static func eventually(_ condition: () -> Bool, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for _ in 0..<500 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
    }

    @Test("twenty callers through a width of three: three go in, seventeen wait, and all pass in the end")
    func width() async throws {
        let limit = ConcurrencyLimit(width: 3)
        let gate = Gate()
        let inside = Shared((now: 0, most: 0, done: 0))
        let callers = (0..<20).map { _ in
            Task {
                try await limit.run {
                    inside.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                    await gate.wait()
                    inside.withLock { $0.now -= 1; $0.done += 1 }
                }
            }
        }
        try await Self.eventually({ limit.waiting == 17 && inside.withLock { $0.now } == 3 }, "three are in and seventeen wait")
        #expect(inside.withLock { $0.now } == 3)
        gate.open()
        for caller in callers { try await caller.value }
        #expect(inside.withLock { $0.most } == 3)
        #expect(inside.withLock { $0.done } == 20)
        #expect(limit.waiting == 0)
    }

    @Test("callers who wait go in in the order they came; a body that throws gives its turn back")
    func order() async throws {
        let limit = ConcurrencyLimit(width: 1)
        let gate = Gate()
        let entered = Shared<[Int]>([])
        let holding = Shared(false)
        let holder = Task {
            try await limit.run {
                holding.withLock { $0 = true }
                await gate.wait()
            }
        }
        try await Self.eventually({ holding.withLock { $0 } }, "the holder is in")
        var waiters: [Task<Void, Never>] = []
        for index in 0..<5 {
            waiters.append(Task {
                do {
                    try await limit.run {
                        entered.withLock { $0.append(index) }
                        if index == 2 { throw CancellationError() }
                    }
                } catch {}
            })
            try await Self.eventually({ limit.waiting == index + 1 }, "\(index + 1) wait")
            #expect(limit.waiting == index + 1)
        }
        #expect(entered.withLock { $0 }.isEmpty)
        gate.open()
        try await holder.value
        for waiter in waiters { await waiter.value }
        #expect(entered.withLock { $0 } == [0, 1, 2, 3, 4])
        // All turns given back: one more caller goes straight in.
        #expect(try await limit.run { 42 } == 42)
    }

    @Test("a caller cancelled while it waits leaves the line at once and never runs; the others keep their turns")
    func cancelledWaiter() async throws {
        let limit = ConcurrencyLimit(width: 1)
        let gate = Gate()
        let holders = try await Self.holdEveryTurn(of: limit, until: gate)
        let ran = Shared<[String]>([])
        let leaving = Task { try await limit.run { ran.withLock { $0.append("cancelled") } } }
        try await Self.eventually({ limit.waiting == 1 }, "the first waits")
        let staying = Task { try await limit.run { ran.withLock { $0.append("stayed") } } }
        try await Self.eventually({ limit.waiting == 2 }, "the second waits")
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        #expect(limit.waiting == 1)
        gate.open()
        for holder in holders { try await holder.value }
        try await staying.value
        #expect(ran.withLock { $0 } == ["stayed"])
        // Cancelled before it asks: it never waits nor runs.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await limit.run { 1 }
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        #expect(try await limit.run { 2 } == 2)
    }

    /// Takes every turn of `limit` until `gate` opens; returns once they are all taken.
    static func holdEveryTurn(of limit: ConcurrencyLimit, until gate: Gate) async throws -> [Task<Void, any Error>] {
        let holding = Shared(0)
        let holders = (0..<limit.width).map { _ in
            Task {
                try await limit.run {
                    holding.withLock { $0 += 1 }
                    await gate.wait()
                }
            }
        }
        try await eventually({ holding.withLock { $0 } == limit.width }, "every turn is taken")
        return holders
    }

    @Test("a durable upload, and a durable removal, wait for a turn among the store's durable writes")
    func durableWritesTakeTurns() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stackmob-limit-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = LocalFileStore(dataDirectory: directory, durable: true)
        let key = FileKey(environment: .development, schema: "photo", id: "1", field: "image", filename: "a.png")

        let gate = Gate()
        let holders = try await Self.holdEveryTurn(of: store.writers, until: gate)
        let put = Task { try await store.put([1, 2, 3], key: key, contentType: "image/png") }
        try await Self.eventually({ store.writers.waiting == 1 }, "the upload waits")
        #expect(store.writers.waiting == 1)
        #expect(store.file(key) == nil)
        gate.open()
        try await put.value
        for holder in holders { try await holder.value }
        #expect(store.file(key)?.size == 3)

        let second = Gate()
        let others = try await Self.holdEveryTurn(of: store.writers, until: second)
        let delete = Task { try await store.delete(key) }
        try await Self.eventually({ store.writers.waiting == 1 }, "the removal waits")
        #expect(store.file(key) != nil)
        second.open()
        try await delete.value
        for holder in others { try await holder.value }
        #expect(store.file(key) == nil)
        #expect(!FileManager.default.fileExists(atPath: directory + "/files/development/photo/1"), "the object's directory goes too")
    }
}
