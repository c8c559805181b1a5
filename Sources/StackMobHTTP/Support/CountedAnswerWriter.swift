import HTTPTypes
import Hummingbird
import NIOCore

/// Writes an answer counted by `BodyBudget.answering(_:to:context:)`: each part larger than
/// `BodyBudget.uncounted` holds its bytes of the budgets while the socket takes it.
///
/// The part is written in two: all but its last `uncounted` bytes, then those. The connection's
/// writer (`HTTP1ResponseWriter`) waits on the first while the socket cannot take more, so the
/// share is given back only once the client has taken nearly all of the part, not when the part
/// is queued; the last bytes are as many as an uncounted answer may leave queued. A part too small
/// to count gives back what was held ahead of it: an answer whose parts are all small (a file
/// read in chunks, or one an inner listener's budget already wrote in pieces) holds nothing once
/// it has begun.
struct CountedAnswerWriter: ResponseBodyWriter {
    var inner: any ResponseBodyWriter
    let holding: BodyBudget.Holding

    mutating func write(_ buffer: ByteBuffer) async throws {
        let bytes = buffer.readableBytes
        guard bytes > BodyBudget.uncounted else {
            defer { holding.release() }
            return try await inner.write(buffer)
        }
        // Held already for an answer of a known length, and for most of a streamed answer's
        // first part; a later part takes its own share here, and ends the answer when it does
        // not fit.
        try holding.grow(to: bytes)
        var rest = buffer
        let first = rest.readSlice(length: bytes - BodyBudget.uncounted)!
        do {
            // Given back whether the socket took the part or the connection ended first.
            defer { holding.release() }
            try await inner.write(first)
        }
        try await inner.write(rest)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        holding.releaseAll()
        try await inner.finish(trailingHeaders)
    }
}
