import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1

/// Handing a request to the connection's task, and writing its response as the task hands it
/// back.
extension HTTP1ConnectionHandler {
    func dispatch(_ request: HTTPRequest, body: RequestBody, context: ChannelHandlerContext) {
        responding = true
        respondingTo = request.method
        idleSince = nil
        exchanges &+= 1
        let next = (Request(head: request, body: body), exchanges)
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
        guard let context, responding, exchange == exchanges else { return }
        if let head { writeHead(head, context: context) }
        if let body { writeBody(body, context: context) }
        let end = encoder.end(trailers, allocator: context.channel.allocator) ?? ByteBuffer()
        guard !(closeAfterResponse || closeQuietlyAfterResponse || isBroken) else {
            responding = false
            closeAfter(context.writeAndFlush(wrapOutboundOut(end)), context: context)
            return
        }
        if end.readableBytes > 0 { context.write(wrapOutboundOut(end), promise: nil) }
        context.flush()
        responseEnded()
    }

    /// A part of a streamed response body. When the socket cannot take more for now, the
    /// returned future completes once it has taken this part: the writer waits for it.
    func writeStreamed(exchange: UInt64, body: ByteBuffer, head: HTTPResponse?) throws -> EventLoopFuture<Void>? {
        guard let context, responding, exchange == exchanges, context.channel.isActive else { throw ChannelError.ioOnClosedChannel }
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
        let bytes = encoder.head(responseHead(head), answering: respondingTo, stamp: stamp, allocator: context.channel.allocator)
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
        guard responding, exchange == exchanges else { return }
        responding = false
        reading = .broken
        context?.close(promise: nil)
    }

    /// The responder threw the parser's error (a body that broke): answered as a head the parser
    /// refused.
    func abandonWithMalformedRequest(exchange: UInt64) {
        guard let context, responding, exchange == exchanges else { return }
        responding = false
        reading = .broken
        writeMalformedRequest(answering: respondingTo, context: context)
    }

    /// The head on the wire: `Connection: close` when the server closes after it; a response that
    /// says so itself closes the connection too.
    private func responseHead(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        if response.headerFields[.connection]?.lowercased() == "close" {
            closeAfterResponse = true
        } else if closeAfterResponse {
            response.headerFields[.connection] = "close"
        }
        return response
    }

    /// A request the parser refused: 400 without a body, as Hummingbird answered it, then the
    /// connection closes. `method` is nil when not even the request's head could be read.
    func writeMalformedRequest(answering method: HTTPRequest.Method? = nil, context: ChannelHandlerContext) {
        let response = HTTPResponse(status: .badRequest, headerFields: [.connection: "close", .contentLength: "0"])
        context.write(wrapOutboundOut(encoder.head(response, answering: method, allocator: context.channel.allocator)), promise: nil)
        _ = encoder.end(nil, allocator: context.channel.allocator)
        closeAfter(context.writeAndFlush(wrapOutboundOut(ByteBuffer())), context: context)
    }

    /// Closes the connection once `written` (its last response) is on the wire: the write side
    /// first, so that the client reads the response and then the end of the stream; the read
    /// side once the client closes too, or after `lingerTimeout`, dropping what it still sends
    /// (the rest of a body nobody read). Closing both at once while the client still sends makes
    /// the kernel reset the connection, and the client may lose the response.
    func closeAfter(_ written: EventLoopFuture<Void>, context: ChannelHandlerContext) {
        reading = .broken
        queued.removeAll()
        bodyFull = false
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        written.whenComplete { _ in bound.value.linger() }
    }

    /// How long a connection closing after its response keeps reading what the client still sends.
    static var lingerTimeout: TimeAmount { .seconds(2) }

    private func linger() {
        guard let context else { return }
        guard !inputClosed else {
            context.close(promise: nil)
            return
        }
        context.close(mode: .output, promise: nil)
        let now = NIODeadline.now()
        lingerSince = now
        setTimer(for: now + Self.lingerTimeout)
        resumeReading()
    }

    private var isBroken: Bool {
        if case .broken = reading { return true }
        return false
    }

    /// The response is written: the connection is ready for the next request, once this one's
    /// body has been read to its end.
    private func responseEnded() {
        responding = false
        switch reading {
        case .complete:
            reading = .idle
        case .head, .body:
            // Answered before its body was read: the rest of it is dropped as it arrives.
            bodyFull = false
            reading = .discarding
        case .idle, .discarding, .broken:
            break
        }
        if case .idle = reading { becameIdle() }
        resumeReading()
    }

    /// No request under way: the pipelined requests are taken in turn, then the connection waits
    /// for the next one (or closes if the client said it is done).
    func becameIdle() {
        guard let context else { return }
        while !queued.isEmpty && !mustWait {
            switch queued.removeFirst() {
            case .part(let part): receive(part, context: context)
            case .error(let error): failed(error, context: context)
            }
        }
        // No read completes for what was queued: a head without its whole body starts its task now.
        if queued.isEmpty, case .head = reading { startStreaming(context: context) }
        if case .idle = reading, !responding {
            idleSince = .now()
            setTimer(for: idleSince! + settings.idleTimeout)
        }
        closeIfDone()
        resumeReading()
    }

    /// A request read to its end is being answered, or nothing more can be read.
    private var mustWait: Bool {
        switch reading {
        case .complete: responding
        case .broken: true
        case .idle, .head, .body, .discarding: false
        }
    }
}
