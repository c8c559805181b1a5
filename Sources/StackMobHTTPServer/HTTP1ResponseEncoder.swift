import HTTPTypes
import NIOCore
import NIOHTTP1

/// A response's bytes, as NIO's `HTTPResponseEncoder` writes them, byte for byte, straight from
/// swift-http-types' `HTTPResponse`.
///
/// NIO's encoder takes NIO's own head (`HTTPResponseHead`), so every response was converted first,
/// its fields copied into `HTTPHeaders`, then framed and written field by field
/// (docs/benchmarks.md, "Figures behind design choices"). The framing rules are the encoder's (the
/// framing headers of a response that may have a body are made consistent, a body without a length
/// is chunked, a response to `HEAD` or `CONNECT` has no body), and `HTTP1ResponseEncoderTests`
/// compares the bytes with the encoder's.
struct HTTP1ResponseEncoder {
    /// The `Date` and `Server` fields of the response to a request the server answered: its own,
    /// where the response has them (its first of each; any other is dropped), else after its
    /// fields, `Date` first. The bytes of setting both with `HTTPFields`' subscript, without
    /// making, validating and finding fields for every response (docs/benchmarks.md).
    struct Stamp {
        /// The current second, formatted (`DateHeader`): digits, letters, spaces, commas and
        /// colons.
        let date: String
        /// The server's name: a constant of letters and a space.
        let server: String
    }

    /// How one of a response's fields goes on the wire.
    private enum FieldWriting {
        case asItIs, dropped, date, server
    }

    /// The body under way is sent in chunks.
    private var chunked = false
    /// The response under way answers `HEAD` or `CONNECT`: its body is not sent.
    private var suppressBody = false

    /// The status line and fields of `response`, the answer to a request with `method` (nil when
    /// the request's head could not be parsed).
    mutating func head(
        _ response: HTTPResponse, answering method: HTTPRequest.Method?, stamp: Stamp? = nil, allocator: ByteBufferAllocator
    ) -> ByteBuffer {
        let status = HTTPResponseStatus(statusCode: response.status.code, reasonPhrase: response.status.reasonPhrase)
        let informational = (100..<200).contains(response.status.code) && response.status.code != 101
        if !informational {
            suppressBody = method == .head || method == .connect
        }
        // The encoder's framing: `Transfer-Encoding` always goes; `Content-Length` too when there
        // can be no body; a body without a length is chunked.
        let hasBody = method != .connect && status.mayHaveResponseBody
        let fields = response.headerFields
        let dropLength = !hasBody
        let addChunked = hasBody && !fields.contains(.contentLength)
        chunked = !suppressBody && addChunked

        let chunkedField: StaticString = "transfer-encoding: chunked\r\n"
        let dateName: StaticString = "Date: "
        let serverName: StaticString = "Server: "
        // Measured first, then written through one pointer: written piece by piece, each of the
        // head's twenty-odd pieces paid the buffer's uniqueness, capacity and exclusivity checks
        // (docs/benchmarks.md, "Figures behind design choices").
        let code = String(status.code)
        var length = "HTTP/1.1 ".utf8.count + code.utf8.count + 1 + status.reasonPhrase.utf8.count + 2 + 2
        var stampsDate = stamp != nil
        var stampsServer = stamp != nil
        // Written only where a stamp is.
        let date = stamp?.date ?? ""
        let server = stamp?.server ?? ""
        return withUnsafeTemporaryAllocation(of: FieldWriting.self, capacity: fields.count) { writings in
            for (index, field) in fields.enumerated() {
                let writing = Self.writing(of: field, dropLength: dropLength, stamping: stamp != nil, date: &stampsDate, server: &stampsServer)
                writings.initializeElement(at: index, to: writing)
                switch writing {
                case .asItIs: length += field.name.rawName.utf8.count + 2 + field.value.utf8.count + 2
                case .dropped: break
                case .date: length += dateName.utf8CodeUnitCount + date.utf8.count + 2
                case .server: length += serverName.utf8CodeUnitCount + server.utf8.count + 2
                }
            }
            if stampsDate { length += dateName.utf8CodeUnitCount + date.utf8.count + 2 }
            if stampsServer { length += serverName.utf8CodeUnitCount + server.utf8.count + 2 }
            if addChunked { length += chunkedField.utf8CodeUnitCount }
            var buffer = allocator.buffer(capacity: length)
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { raw in
                var head = HeadBytes(raw)
                head.append("HTTP/1.1 ")
                head.append(code)
                head.append(" ")
                head.append(status.reasonPhrase)
                head.append("\r\n")
                for (index, field) in fields.enumerated() {
                    switch writings[index] {
                    case .asItIs: head.append(field: field.name.rawName, field.value)
                    case .dropped: break
                    case .date: head.append(field: dateName, date)
                    case .server: head.append(field: serverName, server)
                    }
                }
                if stampsDate { head.append(field: dateName, date) }
                if stampsServer { head.append(field: serverName, server) }
                if addChunked { head.append(chunkedField) }
                head.append("\r\n")
                return head.count
            }
            return buffer
        }
    }

    /// How `field` is written. The names are compared by length first: most differ in length,
    /// and comparing two different names longer than 15 bytes (`x-stackmob-time-ms` with
    /// `transfer-encoding`) goes through the standard library's general string comparison.
    ///
    /// - Parameters:
    ///   - date: whether the server's `Date` is still to be written; cleared where it takes the
    ///     place of the response's first.
    ///   - server: the same for `Server`.
    private static func writing(of field: HTTPField, dropLength: Bool, stamping: Bool, date: inout Bool, server: inout Bool) -> FieldWriting {
        switch field.name.canonicalName.utf8.count {
        case 17 where field.name == .transferEncoding:
            return .dropped
        case 14 where dropLength && field.name == .contentLength:
            return .dropped
        case 4 where stamping && field.name == .date:
            return stamped(&date, else: .date)
        case 6 where stamping && field.name == .server:
            return stamped(&server, else: .server)
        default:
            return .asItIs
        }
    }

    /// A stamped field the response has: the server's value in place of its first, the others
    /// dropped.
    private static func stamped(_ pending: inout Bool, else replacement: FieldWriting) -> FieldWriting {
        defer { pending = false }
        return pending ? replacement : .dropped
    }

    /// A part of the body: the bytes to write, in order (none for a body not sent, or empty).
    func body(_ part: ByteBuffer, allocator: ByteBufferAllocator) -> [ByteBuffer] {
        guard !suppressBody, part.readableBytes > 0 else { return [] }
        guard chunked else { return [part] }
        var size = allocator.buffer(capacity: 18)
        size.writeString(String(part.readableBytes, radix: 16))
        size.writeStaticString("\r\n")
        var end = allocator.buffer(capacity: 2)
        end.writeStaticString("\r\n")
        return [size, part, end]
    }

    /// The end of the response: the last chunk and trailers of a chunked body, else nothing.
    mutating func end(_ trailers: HTTPFields?, allocator: ByteBufferAllocator) -> ByteBuffer? {
        defer {
            chunked = false
            suppressBody = false
        }
        guard chunked else { return nil }
        var buffer = allocator.buffer(capacity: 8)
        buffer.writeStaticString("0\r\n")
        for field in trailers ?? [:] {
            buffer.writeString(field.name.rawName)
            buffer.writeStaticString(": ")
            buffer.writeString(field.value)
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString("\r\n")
        return buffer
    }
}

/// Bytes copied into memory a buffer lent, each copy checked against its end.
private struct HeadBytes {
    private let memory: UnsafeMutableRawBufferPointer
    private(set) var count = 0

    init(_ memory: UnsafeMutableRawBufferPointer) {
        self.memory = memory
    }

    mutating func append(_ string: String) {
        string.utf8.span.withUnsafeBufferPointer { append(UnsafeRawBufferPointer($0)) }
    }

    mutating func append(_ string: StaticString) {
        string.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
    }

    mutating func append(field name: String, _ value: String) {
        append(name)
        append(": ")
        append(value)
        append("\r\n")
    }

    /// `name` ends with its colon and space.
    mutating func append(field name: StaticString, _ value: String) {
        append(name)
        append(value)
        append("\r\n")
    }

    private mutating func append(_ bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count <= memory.count - count, "a response head longer than measured")
        UnsafeMutableRawBufferPointer(rebasing: memory[count...]).copyMemory(from: bytes)
        count += bytes.count
    }
}
