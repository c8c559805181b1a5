import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1

/// Serves one HTTP/1.1 connection: reads each request from NIO's parser, hands it to the
/// connection's task (`HTTP1Exchange`, on the connection's event loop), and writes the response
/// the task hands back (`HTTP1ResponseEncoder`). Everything here runs on that event loop.
///
/// Requests are answered one at a time, in order. A request read while another is answered
/// (pipelining) waits in `queued`, and the connection stops reading until it is taken.
///
/// Besides, it keeps the connection bounded, whatever the client sends:
/// - **a request head** still incomplete `headTimeout` after its first byte closes the
///   connection (no answer can be framed for a request that has no head yet);
/// - **a request body** still incomplete `bodyTimeout` after its head fails the body's reader
///   with `RequestBodyTimeout` (408), and the connection is closed after the answer;
/// - **a new connection** that has not sent a complete request head `newConnectionTimeout` after
///   it was accepted is closed (a client that connects and says nothing holds its slot for
///   seconds);
/// - **a connection without a request** for `idleTimeout` is closed;
/// - **after a request that left HTTP/1.1** (`Upgrade`, `CONNECT`) NIO's parser stops parsing,
///   so the answer says `Connection: close` and the connection closes; so does any answer that
///   says `Connection: close` itself (a malformed body, a body timeout);
/// - **a listener's connections** are capped, in all and per client address
///   (`ConnectionCounter`): one past a cap is closed as soon as it is accepted.
///
/// Not generic: the nested types of a generic class are generic too, and each use of them looked
/// up their metadata at run time.
final class HTTP1ConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Where the request being read stands.
    enum Reading {
        /// Waiting for the next request's head.
        case idle
        /// A head, and what arrived of its body, not yet handed to a task: a request whose body
        /// arrives with its head is handed over whole.
        case head(HTTPRequest, ByteBuffer?)
        /// Handed to its task; the rest of the body goes to the task through `source`.
        case body(RequestBodyStream.Source, stream: UInt64)
        /// Read to its end.
        case complete
        /// Answered, or its reader gone, before its body ended: the rest is read and dropped.
        case discarding
        /// The connection cannot be read any further (its framing broke, or it closed): it is
        /// closed once the request under way is answered.
        case broken
    }

    /// A pipelined request's part, or the parser's error, in the order they came.
    enum Inbound {
        case part(HTTPServerRequestPart)
        case error(any Error)
    }

    let settings: HTTP1ConnectionSettings
    var context: ChannelHandlerContext?

    var reading = Reading.idle {
        didSet {
            // A body left before its end (the connection broke, closed, or was answered) ends
            // in an error for its reader, never in what would look like a complete body.
            guard case .body(let source, let stream) = oldValue else { return }
            if case .body(_, stream) = reading { return }
            source.finish(ChannelError.eof)
        }
    }
    /// A request's task runs, or its response is being written.
    var responding = false
    /// The method of the request being answered: a response to `HEAD` or `CONNECT` has no body.
    var respondingTo: HTTPRequest.Method?
    var encoder = HTTP1ResponseEncoder()
    /// The number of the latest request handed to the connection's task: what a response written
    /// is matched to.
    var exchanges: UInt64 = 0
    /// The connection's task, waiting for its next request.
    var waitingTask: UnsafeContinuation<(Request, UInt64)?, Never>?
    /// A request read before the connection's task asked for it.
    var pendingRequest: (Request, UInt64)?
    /// The connection closed: its task stops asking for requests.
    var ended = false
    var queued = CircularBuffer<Inbound>()
    /// A `read` the channel asked for and this handler held back.
    var readHeld = false
    /// The body's reader is `highWatermark` chunks behind.
    var bodyFull = false
    /// The id of the latest body stream: a stream's callbacks may arrive after the next one began.
    var streams: UInt64 = 0
    /// The server closes the connection after the response under way and says so in it
    /// (`Connection: close`).
    var closeAfterResponse = false
    /// The connection closes after the response under way without the response saying so: the
    /// client asked (`Connection: close`, HTTP/1.0).
    var closeQuietlyAfterResponse = false
    /// The client will send nothing more (a half-closed connection).
    var inputClosed = false
    /// The server is shutting down: the connection closes once no request is under way or read.
    var quiescing = false

    /// How the connection was counted against the listener's caps.
    var ticket: ConnectionCounter.Ticket?

    // Deadlines (HTTP1ConnectionHandler+Timers.swift).
    /// When the connection was accepted, until its first request head arrived.
    var acceptedAwaitingFirstHead: NIODeadline?
    /// The next bytes start a request head.
    var awaitingHead = true
    /// When the head under way began to arrive.
    var headStarted: NIODeadline?
    /// When the body under way began (its head arrived).
    var bodyStarted: NIODeadline?
    /// Since when the connection has had no request.
    var idleSince: NIODeadline?
    /// Since when the connection, its last response written, waits for the client to close.
    var lingerSince: NIODeadline?
    /// One timer for every deadline, set to fire at `timerFires`, moved only when a deadline
    /// comes sooner: per request that is a few clock reads instead of a timer set and cancelled.
    var timer: Scheduled<Void>?
    var timerFires: NIODeadline?

    init(settings: HTTP1ConnectionSettings) {
        self.settings = settings
    }

    // MARK: Connection

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let ticket = settings.connections.opened(peer: context.channel.remoteAddress)
        self.ticket = ticket
        guard ticket.admitted else {
            reading = .broken
            context.close(promise: nil)
            return
        }
        // The head timeout starts with a request's first byte, which only a handler in front of
        // the parser sees.
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let observer = InboundBytesObserver { bound.value.bytesArrived() }
        try? context.pipeline.syncOperations.addHandler(observer, position: .first)
        let accepted = NIODeadline.now()
        acceptedAwaitingFirstHead = accepted
        setTimer(for: accepted + settings.newConnectionTimeout)
        becameIdle()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let ticket { settings.connections.closed(ticket) }
        ticket = nil
        cancelTimer()
        self.context = nil
        endRequests()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        // A body's reader learns the connection was lost (`RequestBodyReader`: 400, the client's).
        reading = .broken
        queued.removeAll()
        endRequests()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case ChannelEvent.inputClosed:
            inputClosed = true
            switch reading {
            case .body, .discarding:
                // A body cut short.
                reading = .broken
            case .idle, .head, .complete, .broken:
                break
            }
            closeIfDone()
        case is ChannelShouldQuiesceEvent:
            // The server is shutting down: answer the requests already read (pipelined ones
            // too), then close.
            quiescing = true
            closeIfDone()
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// Closes the connection if no request is under way or waiting and none is expected.
    func closeIfDone() {
        guard let context, !responding, queued.isEmpty else { return }
        switch reading {
        case .broken:
            closeOnceWritten(context: context)
        case .idle, .discarding:
            if inputClosed || quiescing || closeQuietlyAfterResponse || closeAfterResponse {
                reading = .broken
                closeOnceWritten(context: context)
            }
        case .head, .body, .complete:
            break
        }
    }

    /// Closes the connection once what was written to it is on the wire (`closeAfter`): a
    /// channel drops the writes still queued when it closes, and a client that half-closed and
    /// reads slowly would lose the end of its last response.
    private func closeOnceWritten(context: ChannelHandlerContext) {
        closeAfter(context.writeAndFlush(wrapOutboundOut(ByteBuffer())), context: context)
    }

    // MARK: Reading requests

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case .head:
            headStarted = nil
            acceptedAwaitingFirstHead = nil
            awaitingHead = false
        case .body:
            break
        case .end:
            awaitingHead = true
        }
        if mustQueue {
            queued.append(.part(part))
        } else {
            receive(part, context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // A head read without all of its body: its task starts now and reads the rest as it comes.
        if case .head = reading { startStreaming(context: context) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if mustQueue {
            queued.append(.error(error))
        } else {
            failed(error, context: context)
        }
    }

    /// A request is answered while the next one was already read: the next waits its turn.
    var mustQueue: Bool {
        guard queued.isEmpty else { return true }
        if case .complete = reading { return responding }
        return false
    }

    /// The largest body collected whole before its request's task starts; a larger one is
    /// streamed to the task.
    static var wholeBodyLimit: Int { 64 * 1024 }

    func receive(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch (reading, part) {
        case (.idle, .head(let head)):
            idleSince = nil
            let request: HTTPRequest
            do {
                request = try HTTPRequest.plainHTTP(head)
            } catch {
                // A head swift-http-types cannot represent (an invalid method): there is no
                // request to answer.
                reading = .broken
                context.close(promise: nil)
                return
            }
            if request.method == .connect || request.headerFields[.upgrade] != nil {
                closeAfterResponse = true
            }
            if !head.isKeepAlive { closeQuietlyAfterResponse = true }
            reading = .head(request, nil)
            bodyArriving()
        case (.head(let request, var body), .body(var chunk)):
            if body == nil {
                body = chunk
            } else {
                body!.writeBuffer(&chunk)
            }
            reading = .head(request, body)
            if body!.readableBytes > Self.wholeBodyLimit { startStreaming(context: context) }
        case (.head(let request, let body), .end):
            bodyArrived()
            reading = .complete
            dispatch(request, body: RequestBody(buffer: body ?? ByteBuffer()), context: context)
        case (.body(let source, _), .body(let chunk)):
            if source.yield(chunk) == .stopProducing { bodyFull = true }
        case (.body(let source, _), .end):
            bodyArrived()
            source.finish()
            // A finished stream asks for nothing more: a pipelined request's reads must not wait
            // for it.
            bodyFull = false
            reading = .complete
        case (.discarding, .end):
            bodyArrived()
            reading = responding ? .complete : .idle
            if !responding { becameIdle() }
        case (.discarding, _), (.broken, _):
            break
        case (.idle, .body), (.idle, .end), (.head, .head), (.body, .head), (.complete, _):
            // NIO's parser gives a head, body parts and an end, in that order, and a request read
            // to its end waits in `queued` while the one before it is answered.
            assertionFailure("HTTP part \(part) while \(reading)")
            reading = .broken
            context.close(promise: nil)
        }
    }

    /// Hands the request read so far to its task, with a stream for the rest of its body.
    func startStreaming(context: ChannelHandlerContext) {
        guard case .head(let request, let body) = reading else { return }
        streams &+= 1
        let stream = streams
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let (source, producer) = RequestBodyStream.make(
            delegate: .init(
                produceMoreCallback: { eventLoop.execute { bound.value.bodyReaderCaughtUp(stream: stream) } },
                didTerminateCallback: { eventLoop.execute { bound.value.bodyReaderGone(stream: stream) } }))
        bodyFull = false
        if let body, source.yield(body) == .stopProducing { bodyFull = true }
        reading = .body(source, stream: stream)
        dispatch(request, body: RequestBody(asyncSequence: producer), context: context)
    }

    func bodyReaderCaughtUp(stream: UInt64) {
        guard stream == streams else { return }
        bodyFull = false
        resumeReading()
    }

    func bodyReaderGone(stream: UInt64) {
        guard stream == streams else { return }
        bodyFull = false
        if case .body = reading { reading = .discarding }
        resumeReading()
    }

    /// The parser's error, or the connection's: the request it broke is answered if it can be.
    func failed(_ error: any Error, context: ChannelHandlerContext) {
        // Once the connection is given up, the parser's complaints about what still arrives
        // (`dataReceivedInErrorState`) change nothing.
        if case .broken = reading { return }
        guard error is HTTPParserError else {
            // The socket failed (reset by the peer): nothing more can be read or written.
            if case .body(let source, _) = reading { source.finish(error) }
            reading = .broken
            context.close(promise: nil)
            return
        }
        switch reading {
        case .idle:
            // A head that cannot be parsed gets 400, and the connection closes: what follows it
            // cannot be framed.
            reading = .broken
            writeMalformedRequest(context: context)
        case .head(let request, _):
            // Its body broke before its task started: the route finds the error reading the body.
            reading = .broken
            dispatch(request, body: RequestBody(asyncSequence: FailedRequestBody(error: error)), context: context)
        case .body(let source, _):
            source.finish(error)
            reading = .broken
        case .discarding:
            reading = .broken
            closeIfDone()
        case .complete:
            reading = .broken
        case .broken:
            break
        }
    }

    // MARK: Back-pressure

    func read(context: ChannelHandlerContext) {
        if holdsReads {
            readHeld = true
        } else {
            context.read()
        }
    }

    /// Reading waits while a pipelined request waits, or while the body's reader is behind.
    var holdsReads: Bool { !queued.isEmpty || bodyFull }

    func resumeReading() {
        guard readHeld, !holdsReads, let context else { return }
        readHeld = false
        context.read()
    }
}
