import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1

@testable import StackMobHTTPServer

/// One connection's pipeline, as `HTTP1Connection.setup` builds it, on an `EmbeddedChannel`: the
/// test sends bytes, moves the loop's clock, and plays the connection's task (takes each request
/// and writes its response), all on the test's thread.
final class EmbeddedHTTP1Connection {
    let loop = EmbeddedEventLoop()
    let channel: EmbeddedChannel
    let handler: HTTP1ConnectionHandler
    private var received = ""

    /// Timeouts: head 10 s, new connection 5 s, body 20 s, idle 60 s.
    static func settings(limit: Int = 100, limitPerClient: Int = 100) -> HTTP1ConnectionSettings {
        let connections = ConnectionCounter(limit: limit, limitPerClient: limitPerClient, isTrustedProxy: { _ in false }, logger: Logger(label: "test"))
        return HTTP1ConnectionSettings(
            headTimeout: .seconds(10), newConnectionTimeout: .seconds(5), bodyTimeout: .seconds(20), idleTimeout: .seconds(60),
            requestTimeoutSeconds: 60, serverName: "StackMob Server", connections: connections,
            timeoutResponse: { _ in Response(status: .gatewayTimeout) })
    }

    init(settings: HTTP1ConnectionSettings = settings(), peer: String = "192.0.2.1") throws {
        channel = EmbeddedChannel(loop: loop)
        // An embedded channel's remote address is the one it connects to.
        try channel.connect(to: SocketAddress(ipAddress: peer, port: 50_000)).wait()
        let value = try HTTP1Connection(responder: Unanswered(), settings: settings).setup(channel: channel, logger: Logger(label: "test")).wait()
        handler = value.handler.value
        try channel.pipeline.syncOperations.addHandler(reads, position: .first)
    }

    /// The reads that reached the socket: the handler holds a read back while a pipelined
    /// request waits, or while a body's reader is behind.
    let reads = ReadCounter()

    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = Any
        private(set) var count = 0

        func read(context: ChannelHandlerContext) {
            count += 1
            context.read()
        }
    }

    var isOpen: Bool { channel.isActive }

    func send(_ text: String) throws {
        try channel.writeInbound(ByteBuffer(string: text))
    }

    /// The client half-closes: it will send nothing more.
    func closeInput() {
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
    }

    func advance(by amount: TimeAmount) {
        loop.advanceTime(by: amount)
    }

    /// The request the connection's task takes next, and its exchange number.
    func nextRequest() -> (request: Request, exchange: UInt64)? {
        defer { handler.pendingRequest = nil }
        return handler.pendingRequest
    }

    /// Writes a whole response, as `HTTP1ResponseWriter` does for a body of one buffer.
    func respond(_ exchange: UInt64, status: HTTPResponse.Status = .ok, fields: HTTPFields = [:], body: String) {
        var fields = fields
        fields[.contentLength] = "\(body.utf8.count)"
        handler.writeResponse(exchange: exchange, head: HTTPResponse(status: status, headerFields: fields), body: ByteBuffer(string: body), trailers: nil)
    }

    /// Everything the server wrote so far.
    func written() throws -> String {
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            received += String(buffer: buffer)
        }
        return received
    }

    /// The responses the server wrote so far, framed by their `Content-Length`.
    func responses() throws -> [Answer] {
        var rest = Substring(try written())
        var responses: [Answer] = []
        while let end = rest.range(of: "\r\n\r\n") {
            let lines = rest[..<end.lowerBound].components(separatedBy: "\r\n")
            var fields: [String: String] = [:]
            for line in lines.dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                fields[parts[0].lowercased()] = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            }
            let length = Int(fields["content-length"] ?? "0") ?? 0
            let body = rest[end.upperBound...].prefix(length)
            responses.append(Answer(status: Int(lines[0].split(separator: " ")[1]) ?? 0, fields: fields, body: String(body)))
            rest = rest[end.upperBound...].dropFirst(length)
        }
        return responses
    }

    struct Answer {
        let status: Int
        let fields: [String: String]
        let body: String
    }

    /// A responder never called: the test answers the requests itself.
    struct Unanswered: LocalResponder {
        nonisolated(nonsending) func answer(_ request: Request, context: BasicRequestContext) async throws -> Response {
            Response(status: .internalServerError)
        }
    }

    static func request(_ method: String = "GET", _ path: String = "/thing", headers: [String] = [], body: String = "") -> String {
        var lines = ["\(method) \(path) HTTP/1.1", "Host: 127.0.0.1"] + headers
        if !body.isEmpty { lines.append("Content-Length: \(body.utf8.count)") }
        return lines.joined(separator: "\r\n") + "\r\n\r\n" + body
    }
}
