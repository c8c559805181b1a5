import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Where log lines go: standard error, whole lines, in the order they were logged.
///
/// A request log line is written for every request, and a `write(2)` each cost a fifth of the
/// trivial route's throughput. So lines are written in batches:
/// - a routine line (`immediately: false`: the request lines, at `info` and below) waits up to
///   `batchDelay` (2 ms) for others, and a serial queue writes them together, one system call
///   for many lines;
/// - a line that may explain a failure (`notice` and above) is written at once, with the lines
///   waiting before it, unless a write is under way or a batch is waiting; then it joins the
///   queue, which writes it within those 2 ms.
///
/// What this gives up: if the process crashes, the routine lines of its last 2 ms, and any line
/// logged while a write was under way, are lost. A clean exit `flush()`es them.
public final class LogOutput: Sendable {
    private struct State {
        /// A write is under way, on a logging thread or on `queue`, or a drain is scheduled: new
        /// lines wait in `pending` for it.
        var writing = false
        var pending: [UInt8] = []
        /// Lines dropped because `pending` was full: standard error is not being read.
        var dropped = 0
    }

    private let descriptor: Int32
    /// Beyond this many bytes waiting, a line is dropped (and counted) rather than let a
    /// standard error nobody reads hold the server's memory.
    private let pendingLimit: Int
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "stackmob.log-output")
    private let batchDelay: DispatchTimeInterval

    public static func standardError() -> LogOutput { LogOutput(descriptor: STDERR_FILENO) }

    init(descriptor: Int32, pendingLimit: Int = 4 << 20, batchDelay: DispatchTimeInterval = .milliseconds(2)) {
        self.descriptor = descriptor
        self.pendingLimit = pendingLimit
        self.batchDelay = batchDelay
    }

    public func write(_ line: String, immediately: Bool = true) {
        var line = line
        line.withUTF8 { write(UnsafeRawBufferPointer($0), immediately: immediately) }
    }

    public func write(_ line: [UInt8], immediately: Bool = true) {
        line.withUnsafeBytes { write($0, immediately: immediately) }
    }

    private func write(_ line: UnsafeRawBufferPointer, immediately: Bool) {
        enum Next { case nothing, scheduleDrain, writeNow([UInt8]) }
        let next: Next = state.withLock { state in
            if !state.writing && immediately {
                state.writing = true
                var batch: [UInt8] = []
                swap(&batch, &state.pending)
                return .writeNow(batch)
            }
            if state.pending.count + line.count <= pendingLimit {
                state.pending.append(contentsOf: line)
            } else {
                state.dropped += 1
            }
            guard !state.writing else { return .nothing }
            state.writing = true
            return .scheduleDrain
        }
        switch next {
        case .nothing:
            return
        case .scheduleDrain:
            queue.asyncAfter(deadline: .now() + batchDelay) { self.drain() }
        case .writeNow(let waiting):
            // The lines that were waiting for a batch go first, in one call with this one.
            if waiting.isEmpty {
                writeAll(line)
            } else {
                (waiting + line).withUnsafeBytes { writeAll($0) }
            }
            let queued = state.withLock { state in
                if state.pending.isEmpty && state.dropped == 0 { state.writing = false }
                return state.writing
            }
            // Still `writing`: the queue takes over, and loggers keep queueing until it is done.
            if queued { queue.async { self.drain() } }
        }
    }

    /// Writes what is queued, batch after batch, until nothing is left.
    private func drain() {
        while true {
            let batch: [UInt8]? = state.withLock { state in
                guard !state.pending.isEmpty || state.dropped > 0 else {
                    state.writing = false
                    return nil
                }
                var batch: [UInt8] = []
                swap(&batch, &state.pending)
                if state.dropped > 0 {
                    batch += Array("\(state.dropped) log lines dropped: standard error is not read fast enough\n".utf8)
                    state.dropped = 0
                }
                return batch
            }
            guard let batch else { return }
            batch.withUnsafeBytes { writeAll($0) }
        }
    }

    /// Whether a write is under way (tests).
    var isWriting: Bool { state.withLock { $0.writing } }

    /// Returns once every line logged before the call is written: before the process exits.
    public func flush() {
        while state.withLock({ $0.writing }) {
            queue.sync {}
            usleep(1_000)
        }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return  // A closed standard error: the line is lost, the request is not.
            }
        }
    }
}
