import HTTPTypes
import NIOCore
import NIOHTTP1

/// A response's bytes, as NIO's `HTTPResponseEncoder` writes them, byte for byte, straight from
/// swift-http-types' `HTTPResponse`.
///
/// NIO's encoder takes NIO's own head (`HTTPResponseHead`), so every response was converted
/// first, its fields copied into `HTTPHeaders`, then framed and written field by field: a tenth
/// of the instructions of `HEAD /` (issue 19). The framing rules are the encoder's (the framing
/// headers of a response that may have a body are made consistent, a body without a length is
/// chunked, a response to `HEAD` or `CONNECT` has no body), and `HTTP1ResponseEncoderTests`
/// compares the bytes with the encoder's.
struct HTTP1ResponseEncoder {
    /// The body under way is sent in chunks.
    private var chunked = false
    /// The response under way answers `HEAD` or `CONNECT`: its body is not sent.
    private var suppressBody = false

    /// The status line and fields of `response`, the answer to a request with `method` (nil when
    /// the request's head could not be parsed).
    mutating func head(_ response: HTTPResponse, answering method: HTTPRequest.Method?, allocator: ByteBufferAllocator) -> ByteBuffer {
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

        var buffer = allocator.buffer(capacity: 256)
        buffer.writeStaticString("HTTP/1.1 ")
        buffer.writeString(String(status.code))
        buffer.writeStaticString(" ")
        buffer.writeString(status.reasonPhrase)
        buffer.writeStaticString("\r\n")
        for field in fields {
            if field.name == .transferEncoding || (dropLength && field.name == .contentLength) { continue }
            buffer.writeString(field.name.rawName)
            buffer.writeStaticString(": ")
            buffer.writeString(field.value)
            buffer.writeStaticString("\r\n")
        }
        if addChunked { buffer.writeStaticString("transfer-encoding: chunked\r\n") }
        buffer.writeStaticString("\r\n")
        return buffer
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
