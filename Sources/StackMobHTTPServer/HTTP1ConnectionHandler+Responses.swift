import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1

/// Handing a request to the connection's task, and writing its response as the task hands it
/// back.
extension HTTP1ConnectionHandler {
    func handOver(_ request: Request, exchange: UInt64) {
        let next = (request, exchange)
        if let waiting = waitingTask {
            waitingTask = nil
            waiting.resume(returning: next)
        } else {
            pendingRequest = next
        }
    }

    /// The next request and its exchange number, for the connection's task: at once if one was
    /// read, else once one is; nil once the connection is closed.
    func nextRequest() async -> (Request, UInt64)? {
        if let next = pendingRequest {
            pendingRequest = nil
            return next
        }
        guard context != nil, !ended else { return nil }
        return await withUnsafeContinuation { waitingTask = $0 }
    }

    /// No request will come any more: the connection's task ends.
    func endRequests() {
        ended = true
        pendingRequest = nil
        waitingTask?.resume(returning: nil)
        waitingTask = nil
    }

    /// Writes what is left of the response (its head too, unless already written), then its end:
    /// a response whose body is one buffer goes out in one flush.
    func writeResponse(exchange: UInt64, head: HTTPResponse?, body: ByteBuffer?, trailers: HTTPFields?) {
        guard let context, machine.isAnswering(exchange) else { return }
        if let head { writeHead(head, context: context) }
        if let body { writeBody(body, context: context) }
        let end = encoder.end(trailers, allocator: context.channel.allocator) ?? ByteBuffer()
        if machine.responseEnding() {
            closeAfter(context.writeAndFlush(wrapOutboundOut(end)), context: context)
            run(.none)
            return
        }
        if end.readableBytes > 0 { context.write(wrapOutboundOut(end), promise: nil) }
        context.flush()
        machine.responseWritten()
        run(.none)
    }

    /// A part of a streamed response body. When the socket cannot take more for now, the
    /// returned future completes once it has taken this part: the writer waits for it.
    func writeStreamed(exchange: UInt64, body: ByteBuffer, head: HTTPResponse?) throws -> EventLoopFuture<Void>? {
        guard let context, machine.isAnswering(exchange), context.channel.isActive else { throw ChannelError.ioOnClosedChannel }
        if let head { writeHead(head, context: context) }
        writeBody(body, context: context)
        guard !context.channel.isWritable else {
            context.flush()
            return nil
        }
        // Everything before it is written once this is.
        return context.writeAndFlush(wrapOutboundOut(ByteBuffer()))
    }

    /// The head of the response to a request the server answered, with its `Date` and `Server`.
    private func writeHead(_ head: HTTPResponse, context: ChannelHandlerContext) {
        let stamp = HTTP1ResponseEncoder.Stamp(date: settings.date.current(), server: settings.serverName)
        let bytes = encoder.head(machine.responseHead(head), answering: machine.respondingTo, stamp: stamp, allocator: context.channel.allocator)
        context.write(wrapOutboundOut(bytes), promise: nil)
    }

    private func writeBody(_ body: ByteBuffer, context: ChannelHandlerContext) {
        for part in encoder.body(body, allocator: context.channel.allocator) {
            context.write(wrapOutboundOut(part), promise: nil)
        }
    }

    /// The request's task ended without finishing its response (its body failed midway): the
    /// connection cannot carry another response, so it closes.
    func abandonResponse(exchange: UInt64) {
        run(machine.abandonResponse(exchange: exchange))
    }

    /// The responder threw the parser's error (a body that broke): answered as a head the parser
    /// refused.
    func abandonWithMalformedRequest(exchange: UInt64) {
        guard context != nil else { return }
        run(machine.abandonWithMalformedRequest(exchange: exchange))
    }

    /// A request the parser refused: 400 without a body, as Hummingbird answered it, then the
    /// connection closes. `method` is nil when not even the request's head could be read.
    func writeMalformedRequest(answering method: HTTPRequest.Method?, context: ChannelHandlerContext) {
        let response = HTTPResponse(status: .badRequest, headerFields: [.connection: "close", .contentLength: "0"])
        context.write(wrapOutboundOut(encoder.head(response, answering: method, allocator: context.channel.allocator)), promise: nil)
        _ = encoder.end(nil, allocator: context.channel.allocator)
        closeAfter(context.writeAndFlush(wrapOutboundOut(ByteBuffer())), context: context)
    }

    /// Closes the connection once `written` (its last response) is on the wire, as
    /// `HTTP1ConnectionStateMachine.linger(now:)` says.
    func closeAfter(_ written: EventLoopFuture<Void>, context: ChannelHandlerContext) {
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        written.whenComplete { _ in bound.value.linger() }
    }

    private func linger() {
        guard let context else { return }
        run(machine.linger(now: context.eventLoop.now))
    }
}
