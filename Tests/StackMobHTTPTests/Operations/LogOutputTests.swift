import Foundation
@testable import StackMobHTTP
import StackMobTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `LogOutput`: the batching behind every log line (a write per line would block an event loop),
/// over a real pipe.
@Suite("Log output: whole lines, in order, batched", .tags(.timing))
struct LogOutputTests {
    @Test("lines logged at once from many threads arrive whole, each thread's in order, none lost after flush")
    func concurrentLines() async throws {
        let pipe = Pipe()
        let reader = Self.onThread { pipe.fileHandleForReading.readDataToEndOfFile() }
        let output = LogOutput(descriptor: pipe.fileHandleForWriting.fileDescriptor)
        let threads = 8, lines = 2_000
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<threads {
                group.addTask {
                    for index in 0..<lines { output.write("thread=\(thread) line=\(index) \(String(repeating: "x", count: index % 50))\n") }
                }
            }
        }
        output.flush()
        try pipe.fileHandleForWriting.close()
        let text = String(decoding: await reader(), as: UTF8.self)
        var next = [Int](repeating: 0, count: threads)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let match = try #require(line.wholeMatch(of: /thread=(\d+) line=(\d+) x*/), "not a whole line: \(line)")
            let thread = Int(match.1)!, index = Int(match.2)!
            #expect(index == next[thread], "thread \(thread): line \(index) after line \(next[thread] - 1)")
            #expect(line.count == "thread=\(thread) line=\(index) ".count + index % 50)
            next[thread] = index + 1
        }
        #expect(next == [Int](repeating: lines, count: threads))
    }

    @Test("while standard error is not read, lines past the queue's limit are dropped and counted, not kept")
    func unreadOutput() async throws {
        let pipe = Pipe()
        let writeEnd = pipe.fileHandleForWriting.fileDescriptor
        // The smallest pipe buffer, filled: the next write blocks until the test reads.
        let setPipeSize: Int32 = 1031, getPipeSize: Int32 = 1032  // F_SETPIPE_SZ, F_GETPIPE_SZ (Linux)
        _ = fcntl(writeEnd, setPipeSize, 4096)
        let capacity = Int(fcntl(writeEnd, getPipeSize))
        let filler = [UInt8](repeating: UInt8(ascii: "f"), count: capacity - 1) + [UInt8(ascii: "\n")]
        #expect(filler.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) } == capacity)
        let output = LogOutput(descriptor: writeEnd, pendingLimit: 90)
        // Blocks in write(2) with the pipe full: every line after it is queued or dropped.
        let blocked = Self.onThread { output.write("first\n") }
        for _ in 0..<500 where !output.isWriting { try await Task.sleep(for: .milliseconds(10)) }
        try #require(output.isWriting)
        for index in 0..<30 { output.write("queued \(index)\n") }  // 9 bytes each, then 10: 10 fit
        let reader = Self.onThread { pipe.fileHandleForReading.readDataToEndOfFile() }
        await blocked()
        output.flush()
        try pipe.fileHandleForWriting.close()
        let lines = String(decoding: await reader(), as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.dropFirst().first == "first")
        #expect(Array(lines.dropFirst(2).prefix(10)) == (0..<10).map { "queued \($0)" })
        let note: String = "20 log lines dropped: standard error is not read fast enough"
        #expect(lines.last == note)
        #expect(lines.count == 13)  // the filler, "first", ten queued lines, the note
    }

    @Test("routine lines wait a moment for a batch and need no flush; a notice is written before the call returns, or joins a waiting batch")
    func batchedLines() async throws {
        let pipe = Pipe()
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        let output = LogOutput(descriptor: pipe.fileHandleForWriting.fileDescriptor, batchDelay: .milliseconds(300))
        output.write("request 1\n", immediately: false)
        output.write("request 2\n", immediately: false)
        #expect(Self.available(descriptor) == 0, "a routine line waits for its batch")
        // The batch is written by the queue once the delay has passed, with no flush.
        for _ in 0..<200 where Self.available(descriptor) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(Self.read(descriptor) == "request 1\nrequest 2\n")
        for _ in 0..<200 where output.isWriting { try await Task.sleep(for: .milliseconds(10)) }
        // Nothing waiting: written by the call itself.
        output.write("Server started\n")
        #expect(Self.available(descriptor) == "Server started\n".utf8.count)
        #expect(Self.read(descriptor) == "Server started\n")
        // A batch waiting: the notice goes with it, after its lines.
        output.write("request 3\n", immediately: false)
        output.write("Server failed\n")
        #expect(Self.read(descriptor) == "request 3\nServer failed\n")
        output.flush()
        #expect(!output.isWriting)
    }

    /// Bytes waiting in the pipe.
    private static func available(_ descriptor: Int32) -> Int {
        var count: Int32 = 0
        _ = ioctl(descriptor, UInt(FIONREAD), &count)
        return Int(count)
    }

    /// What the pipe holds now (the test's lines are far below its capacity).
    private static func read(_ descriptor: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = Glibc.read(descriptor, &buffer, buffer.count)
        return String(decoding: buffer[..<max(count, 0)], as: UTF8.self)
    }

    /// Starts `body` on a thread of its own: blocking reads and writes must not take one of
    /// the few threads Swift's concurrency pool has. Awaiting the result waits for `body`.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> @Sendable () async -> T {
        // The result if `body` finished first, or the waiter if the test awaited first.
        let state = Mutex<(result: T?, waiter: CheckedContinuation<T, Never>?)>((nil, nil))
        Thread {
            let result = body()
            let waiter = state.withLock { state in
                state.result = result
                return state.waiter
            }
            waiter?.resume(returning: result)
        }.start()
        return {
            await withCheckedContinuation { continuation in
                let result = state.withLock { state in
                    if state.result == nil { state.waiter = continuation }
                    return state.result
                }
                if let result { continuation.resume(returning: result) }
            }
        }
    }
}
