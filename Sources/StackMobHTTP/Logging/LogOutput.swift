import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Where log lines go: standard error, whole lines, in the order they were logged.
///
/// A request log line is written for every request, and a `write(2)` each was a tenth of the
/// trivial route's CPU. So a line is written at once only when no other write is under way;
/// lines logged meanwhile are queued, and written together, in as few calls as the kernel
/// allows, by a serial queue once the write under way has finished. An idle server writes
/// every line straight away, on the thread that logged it; a busy one writes batches, one
/// system call for many lines.
///
/// What this gives up: if the process crashes, the lines still queued (those logged while a
/// write was under way, at most microseconds' worth) are lost. A clean exit `flush()`es them.
public final class LogOutput: Sendable {
    private struct State {
        /// A write is under way, on a logging thread or on `queue`: new lines wait in `pending`.
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

    public static func standardError() -> LogOutput { LogOutput(descriptor: STDERR_FILENO) }

    init(descriptor: Int32, pendingLimit: Int = 4 << 20) {
        self.descriptor = descriptor
        self.pendingLimit = pendingLimit
    }

    public func write(_ line: String) {
        var line = line
        line.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    public func write(_ line: [UInt8]) {
        line.withUnsafeBytes { write($0) }
    }

    private func write(_ line: UnsafeRawBufferPointer) {
        let direct = state.withLock { state in
            guard state.writing else {
                state.writing = true
                return true
            }
            if state.pending.count + line.count <= pendingLimit {
                state.pending.append(contentsOf: line)
            } else {
                state.dropped += 1
            }
            return false
        }
        guard direct else { return }
        writeAll(line)
        let queued = state.withLock { state in
            if state.pending.isEmpty { state.writing = false }
            return !state.pending.isEmpty
        }
        // Still `writing`: the queue takes over, and loggers keep queueing until it is done.
        if queued { queue.async { self.drain() } }
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
