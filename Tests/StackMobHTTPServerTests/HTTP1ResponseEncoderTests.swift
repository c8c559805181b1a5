import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypesHTTP1
import Testing

@testable import StackMobHTTPServer

/// `HTTP1ResponseEncoder` writes the bytes NIO's `HTTPResponseEncoder` writes for the same
/// response to the same request: the server's responses stayed byte for byte what they were.
@Suite("Response encoding")
struct HTTP1ResponseEncoderTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// The request's method; nil: no request head was parsed (a malformed request's 400).
        var method: HTTPMethod? = .GET
        var status: HTTPResponse.Status = .ok
        var fields: HTTPFields = [:]
        var body: [String] = []
        var trailers: HTTPFields? = nil
        /// The server's `Date` and `Server`, which NIO's side gets through the fields' subscript.
        var stamp: HTTP1ResponseEncoder.Stamp? = nil
        var testDescription: String { name }
    }

    private static let stamp = HTTP1ResponseEncoder.Stamp(date: "Sun, 29 Nov 2026 15:32:08 GMT", server: "StackMob Server")

    static let cases: [Case] = [
        Case(name: "length and body", fields: [.contentLength: "5", .contentType: "application/json"], body: ["hello"]),
        Case(name: "no length: chunked", fields: [.contentType: "text/plain"], body: ["hel", "", "lo"]),
        Case(name: "chunked with trailers", body: ["a"], trailers: [HTTPField.Name("X-Check")!: "1"]),
        Case(name: "empty body without length", status: .ok),
        Case(name: "HEAD keeps its framing, drops the body", method: .HEAD, fields: [.contentLength: "5"], body: ["hello"]),
        Case(name: "HEAD without length", method: .HEAD, body: ["hello"]),
        Case(name: "CONNECT has neither length nor body", method: .CONNECT, fields: [.contentLength: "5"], body: ["hello"]),
        Case(name: "204 loses its length", status: .noContent, fields: [.contentLength: "0", HTTPField.Name("X-A")!: "b"]),
        Case(name: "304 loses its coding", status: .notModified, fields: [.eTag: "\"e\"", .transferEncoding: "chunked"]),
        Case(name: "a coding other than chunked", fields: [.transferEncoding: "gzip", .contentType: "text/plain"], body: ["x"]),
        Case(name: "length and coding", fields: [.transferEncoding: "chunked", .contentLength: "1"], body: ["x"]),
        Case(name: "413's reason is NIO's", status: .contentTooLarge, fields: [.contentLength: "0"]),
        Case(name: "a code NIO does not know", status: .init(code: 599, reasonPhrase: "Custom Reason"), fields: [.contentLength: "0"]),
        Case(name: "names keep their case", fields: [HTTPField.Name("X-StackMob-Time-MS")!: "1", .server: "StackMob Server", .contentLength: "0"]),
        Case(name: "a malformed request's 400", method: nil, status: .badRequest, fields: [.connection: "close", .contentLength: "0"]),
        Case(name: "stamped: Date and Server after the fields", fields: [.contentLength: "2"], body: ["{}"], stamp: stamp),
        Case(name: "stamped, chunked", fields: [.contentType: "text/plain"], body: ["a"], stamp: stamp),
        Case(name: "stamped HEAD", method: .HEAD, fields: [HTTPField.Name("X-StackMob-Time-MS")!: "1", .contentLength: "0"], stamp: stamp),
        Case(
            name: "stamped: the response's own Date and Server replaced where they are, a second Date dropped",
            fields: HTTPFields([
                HTTPField(name: HTTPField.Name("date")!, value: "theirs"), HTTPField(name: .contentLength, value: "0"),
                HTTPField(name: .server, value: "Theirs"), HTTPField(name: .date, value: "again"),
            ]),
            stamp: stamp),
        Case(
            name: "stamped: only Server replaced, Date added", status: .notModified,
            fields: [.server: "Theirs", .eTag: "\"e\""], stamp: stamp),
    ]

    @Test("the same bytes as NIO's HTTPResponseEncoder", arguments: cases)
    func sameBytes(_ example: Case) throws {
        #expect(try ours(example) == (try nio(example)))
    }

    @Test("every status code NIO names: the same status line", arguments: Array(100...599))
    func statusLines(code: Int) throws {
        let example = Case(name: "\(code)", status: .init(code: code), fields: [.contentLength: "0"])
        #expect(try ours(example) == (try nio(example)))
    }

    /// The encoder of the server's pipeline, told the request's method by its decoder as
    /// `configureHTTPServerPipeline` wires them.
    private func nio(_ example: Case) throws -> [UInt8] {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false)
        if let method = example.method {
            try channel.writeInbound(ByteBuffer(string: "\(method.rawValue) / HTTP/1.1\r\nHost: x\r\n\r\n"))
            while try channel.readInbound(as: HTTPServerRequestPart.self) != nil {}
        }
        var response = HTTPResponse(status: example.status, headerFields: example.fields)
        if let stamp = example.stamp {
            response.headerFields[.date] = stamp.date
            response.headerFields[.server] = stamp.server
        }
        channel.write(HTTPServerResponsePart.head(HTTPResponseHead(response)), promise: nil)
        for part in example.body {
            channel.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: part))), promise: nil)
        }
        try channel.writeAndFlush(HTTPServerResponsePart.end(example.trailers.map(HTTPHeaders.init))).wait()
        var bytes: [UInt8] = []
        while let data = try channel.readOutbound(as: IOData.self) {
            guard case .byteBuffer(let buffer) = data else { Issue.record("a file region"); break }
            bytes += buffer.readableBytesView
        }
        _ = try channel.finish()
        return bytes
    }

    private func ours(_ example: Case) throws -> [UInt8] {
        var encoder = HTTP1ResponseEncoder()
        let allocator = ByteBufferAllocator()
        let method = try example.method.map { try HTTPRequest.Method($0) }
        var buffers = [
            encoder.head(HTTPResponse(status: example.status, headerFields: example.fields), answering: method, stamp: example.stamp, allocator: allocator)
        ]
        for part in example.body {
            buffers += encoder.body(ByteBuffer(string: part), allocator: allocator)
        }
        buffers += [encoder.end(example.trailers, allocator: allocator)].compactMap { $0 }
        return buffers.flatMap { Array($0.readableBytesView) }
    }
}
