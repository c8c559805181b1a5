import HTTPTypes
import Hummingbird
import NIOCore

/// A request's way back to its connection: the connection's handler, reached on its event loop,
/// and the number of the exchange being answered (a late call for an earlier one is ignored).
struct HTTP1ResponseTarget: Sendable {
    let handler: NIOLoopBound<HTTP1ConnectionHandler>
    let exchange: UInt64

    /// At once when on the connection's event loop, where a request's task runs; otherwise as a
    /// task of the loop, in order.
    func write(head: HTTPResponse?, body: ByteBuffer?, trailers: HTTPFields?) {
        if handler.eventLoop.inEventLoop {
            handler.value.writeResponse(exchange: exchange, head: head, body: body, trailers: trailers)
        } else {
            handler.eventLoop.execute { [self] in handler.value.writeResponse(exchange: exchange, head: head, body: body, trailers: trailers) }
        }
    }

    /// A part of a streamed body; waits while the socket cannot take more.
    func writeStreamed(_ body: ByteBuffer, head: HTTPResponse?) async throws {
        let written: EventLoopFuture<Void>?
        if handler.eventLoop.inEventLoop {
            written = try handler.value.writeStreamed(exchange: exchange, body: body, head: head)
        } else {
            written = try await handler.eventLoop.submit { [self] in
                try handler.value.writeStreamed(exchange: exchange, body: body, head: head)
            }.get()
        }
        try await written?.get()
    }

    /// The request's task is done: a response it did not finish closes the connection.
    func abandon() {
        if handler.eventLoop.inEventLoop {
            handler.value.abandonResponse(exchange: exchange)
        } else {
            handler.eventLoop.execute { [self] in handler.value.abandonResponse(exchange: exchange) }
        }
    }

    /// The responder threw the parser's error: 400 without a body, and the connection closes.
    func abandonWithMalformedRequest() {
        handler.eventLoop.execute { [self] in handler.value.abandonWithMalformedRequest(exchange: exchange) }
    }
}

/// Writes a `Response`'s body to the connection. A body that is one buffer of the declared length
/// (most responses) waits for `finish`, so that head, body and end go out in one flush; a body
/// written in parts (a file) is flushed part by part, waiting whenever the socket is full.
struct HTTP1ResponseWriter: ResponseBodyWriter {
    let connection: HTTP1ResponseTarget
    /// Written with the first part of the body, or with the end.
    var head: HTTPResponse?
    /// `Content-Length`, when the response declares one.
    let length: Int?
    var held: ByteBuffer?

    init(connection: HTTP1ResponseTarget, head: HTTPResponse, length: Int?) {
        self.connection = connection
        self.head = head
        self.length = length
    }

    mutating func write(_ buffer: ByteBuffer) async throws {
        guard buffer.readableBytes > 0 else { return }
        if head != nil, held == nil, buffer.readableBytes == length {
            held = buffer
            return
        }
        if let earlier = held {
            held = nil
            try await send(earlier)
        }
        try await send(buffer)
    }

    private mutating func send(_ buffer: ByteBuffer) async throws {
        let head = self.head
        self.head = nil
        try await connection.writeStreamed(buffer, head: head)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        connection.write(head: head, body: held, trailers: trailingHeaders)
    }
}
