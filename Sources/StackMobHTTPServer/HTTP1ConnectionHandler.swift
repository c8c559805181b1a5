import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1

/// Serves one HTTP/1.1 connection: reads each request from NIO's parser, hands it to the
/// connection's task (`HTTP1Exchange`, on the connection's event loop), and writes the response
/// the task hands back (`HTTP1ResponseEncoder`). Everything here runs on that event loop.
///
/// What the connection does when is decided by `HTTP1ConnectionStateMachine`; this handler feeds
/// it NIO's events and carries out its actions. Besides answering requests one at a time, in
/// order, it keeps the connection bounded, whatever the client sends:
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
/// Its clock is the event loop's (`EventLoop.now`), so that tests can move it.
///
/// Not generic: the nested types of a generic class are generic too, and each use of them looked
/// up their metadata at run time.
final class HTTP1ConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let settings: HTTP1ConnectionSettings
    var context: ChannelHandlerContext?
    var machine: HTTP1ConnectionStateMachine
    var encoder = HTTP1ResponseEncoder()

    /// The body stream of the request being read, while the machine feeds it (`Reading.body`).
    var body: (source: RequestBodyStream.Source, stream: UInt64)?
    /// The connection's task, waiting for its next request.
    var waitingTask: UnsafeContinuation<(Request, UInt64)?, Never>?
    /// A request read before the connection's task asked for it.
    var pendingRequest: (Request, UInt64)?
    /// The connection closed: its task stops asking for requests.
    var ended = false
    /// How the connection was counted against the listener's caps.
    var ticket: ConnectionCounter.Ticket?
    /// The one timer for every deadline, set to fire at `machine.timerFires`.
    var timer: Scheduled<Void>?

    init(settings: HTTP1ConnectionSettings) {
        self.settings = settings
        machine = HTTP1ConnectionStateMachine(
            timeouts: .init(
                head: settings.headTimeout, newConnection: settings.newConnectionTimeout, body: settings.bodyTimeout, idle: settings.idleTimeout))
    }

    // MARK: Connection

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let ticket = settings.connections.opened(peer: context.channel.remoteAddress)
        self.ticket = ticket
        if ticket.admitted {
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            let observer = InboundBytesObserver { bound.value.bytesArrived() }
            try? context.pipeline.syncOperations.addHandler(observer, position: .first)
        }
        run(machine.opened(admitted: ticket.admitted, now: context.eventLoop.now))
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let ticket { settings.connections.closed(ticket) }
        ticket = nil
        machine.clearDeadlines()
        cancelTimer()
        self.context = nil
        endRequests()
    }

    func channelInactive(context: ChannelHandlerContext) {
        machine.channelInactive()
        cancelTimer()
        // A body's reader learns the connection was lost (an error of the client's: 400).
        syncBody()
        endRequests()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case ChannelEvent.inputClosed:
            run(machine.halfClosed())
        case is ChannelShouldQuiesceEvent:
            run(machine.quiesce())
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    // MARK: Reading requests

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        run(machine.partReceived(unwrapInboundIn(data), now: context.eventLoop.now))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        run(machine.readComplete())
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        run(machine.errorCaught(error))
    }

    /// Bytes arrived (`InboundBytesObserver`, in front of the parser).
    func bytesArrived() {
        guard let context else { return }
        machine.bytesArrived(now: context.eventLoop.now)
        armTimer()
    }

    func read(context: ChannelHandlerContext) {
        if machine.readRequested() { context.read() }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        machine.writabilityChanged(writable: context.channel.isWritable, now: context.eventLoop.now)
        run(.none)
        context.fireChannelWritabilityChanged()
    }

    func bodyReaderCaughtUp(stream: UInt64) {
        run(machine.bodyReaderCaughtUp(stream: stream))
    }

    func bodyReaderGone(stream: UInt64) {
        run(machine.bodyReaderGone(stream: stream))
    }

    // MARK: Carrying out the machine's actions

    /// Carries out `action`, then what the event left for later, then keeps the body stream and
    /// the timer in step with the machine.
    func run(_ action: HTTP1ConnectionStateMachine.Action) {
        perform(action)
        while let context {
            let next = machine.nextAction(now: context.eventLoop.now)
            if case .none = next { break }
            perform(next)
        }
        syncBody()
        armTimer()
    }

    private func perform(_ action: HTTP1ConnectionStateMachine.Action) {
        switch action {
        case .none:
            break
        case .dispatch(let request, let body, let exchange):
            handOver(Request(head: request, body: RequestBody(buffer: body ?? ByteBuffer())), exchange: exchange)
        case .dispatchStreaming(let request, let body, let stream, let exchange):
            guard let context else { return }
            handOver(Request(head: request, body: RequestBody(asyncSequence: startStream(stream, with: body, context: context))), exchange: exchange)
        case .dispatchFailed(let request, let error, let exchange):
            handOver(Request(head: request, body: RequestBody(asyncSequence: FailedRequestBody(error: error))), exchange: exchange)
        case .yieldBody(let chunk):
            if body?.source.yield(chunk) == .stopProducing { machine.bodyReaderFellBehind() }
        case .finishBody(let error):
            finishBody(error)
        case .read:
            context?.read()
        case .close:
            context?.close(promise: nil)
        case .failBodyAndClose(let error):
            finishBody(error)
            context?.close(promise: nil)
        case .closeOnceWritten:
            guard let context else { return }
            // A channel drops the writes still queued when it closes, and a client that
            // half-closed and reads slowly would lose the end of its last response.
            closeAfter(context.writeAndFlush(wrapOutboundOut(ByteBuffer())), context: context)
        case .writeMalformedRequest(let method):
            guard let context else { return }
            writeMalformedRequest(answering: method, context: context)
        case .closeOutput:
            context?.close(mode: .output, promise: nil)
        }
    }

    /// A stream for the rest of a request's body, starting with `body`.
    private func startStream(_ stream: UInt64, with body: ByteBuffer?, context: ChannelHandlerContext) -> RequestBodyStream.Producer {
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let (source, producer) = RequestBodyStream.make(
            delegate: .init(
                produceMoreCallback: { eventLoop.execute { bound.value.bodyReaderCaughtUp(stream: stream) } },
                didTerminateCallback: { eventLoop.execute { bound.value.bodyReaderGone(stream: stream) } }))
        self.body = (source, stream)
        if let body, source.yield(body) == .stopProducing { machine.bodyReaderFellBehind() }
        return producer
    }

    private func finishBody(_ error: (any Error)?) {
        guard let body else { return }
        self.body = nil
        if let error {
            body.source.finish(error)
        } else {
            body.source.finish()
        }
    }

    /// A body left before its end (the connection broke, closed, or was answered) ends in an
    /// error for its reader, never in what would look like a complete body.
    private func syncBody() {
        guard let body, !machine.isStreaming(body.stream) else { return }
        finishBody(ChannelError.eof)
    }

    /// Makes sure the timer fires by the machine's next deadline.
    private func armTimer() {
        guard let context, let deadline = machine.timerToArm() else { return }
        timer?.cancel()
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) { bound.value.timerFired() }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }

    private func timerFired() {
        timer = nil
        guard let context else { return }
        run(machine.timerFired(now: context.eventLoop.now))
    }
}
