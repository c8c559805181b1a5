import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Keeps a connection on Hummingbird's `HTTP1Channel` bounded as `HTTP1ConnectionHandler` keeps
/// one on the server's own layer, whatever its client sends. It sits in the pipeline after
/// Hummingbird's conversion to swift-http-types' parts and before its async channel:
/// - **a listener's connections** are capped, in all and per client address
///   (`ConnectionCounter`): one past a cap is closed as soon as it is active;
/// - **a new connection** that has sent no complete request head `newConnectionTimeout` after it
///   was accepted is closed;
/// - **a request head** still incomplete `headTimeout` after its first byte closes the
///   connection (no answer can be framed for a request that has no head yet);
/// - **a request body** still incomplete `bodyTimeout` after its head fails the body's reader
///   with `RequestBodyTimeout` (408), and the connection closes after the answer;
/// - **a connection without a request** for `idleTimeout` is closed (kept here rather than by
///   Hummingbird's idle timeout, which a head arriving byte by byte does not restart);
/// - **after a request that left HTTP/1.1** (`Upgrade`, `CONNECT`) NIO's parser stops parsing, so
///   the answer says `Connection: close` and the connection closes; so does any answer that says
///   `Connection: close` itself (a malformed request, a body timeout), and, without saying so,
///   the answer to an HTTP/1.0 request that did not ask to be kept alive (`KeepAliveObserver`);
/// - **a connection closing after its answer** shuts its output once the answer is on the wire,
///   then drops what the client still sends until the client closes or `lingerTimeout` passes:
///   closing both ways while the client still sends makes the kernel reset the connection, and
///   the client may lose the answer. What arrives then is not handed on, so that no request sent
///   after the last answer runs.
final class HummingbirdConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let settings: HTTP1ConnectionSettings
    private var context: ChannelHandlerContext?
    /// How the connection was counted against the listener's caps.
    private var ticket: ConnectionCounter.Ticket?
    private var closeAfterResponse = false
    /// The requests read and not yet answered (more than one when pipelined), in order, each
    /// with whether the connection closes after its answer without the answer saying so.
    private var unanswered = CircularBuffer<Bool>()
    /// What `KeepAliveObserver` saw of the head about to arrive.
    private var nextHeadKeepsAlive = true
    /// The output is shut: the connection waits for the client to close.
    private var lingering = false
    /// The end of the latest answer, once it is on the wire.
    private var lastAnswerWritten: EventLoopFuture<Void>?
    /// The client will send nothing more (it half-closed).
    private var inputClosed = false
    /// The last answer the connection carries is written: anything after it is dropped. (After
    /// a route answered a body that broke, Hummingbird's channel meets the parser's error again
    /// and would write a second, bare 400.)
    private var answeredLast = false

    // Deadlines, on one timer, moved only when a deadline comes sooner.
    private var acceptedAwaitingFirstHead: NIODeadline?
    /// The next bytes start a request head.
    private var awaitingHead = true
    private var headStarted: NIODeadline?
    private var bodyStarted: NIODeadline?
    private var idleSince: NIODeadline?
    private var lingerSince: NIODeadline?
    private var timer: Scheduled<Void>?
    private var timerFires: NIODeadline?

    /// How long a connection closing after its answer keeps reading what the client still sends.
    static var lingerTimeout: TimeAmount { .seconds(2) }

    init(settings: HTTP1ConnectionSettings) {
        self.settings = settings
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        ticket = settings.connections.opened(peer: context.channel.remoteAddress)
        // The head timeout starts with a request's first byte, which only a handler in front of
        // the parser sees.
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        try? context.pipeline.syncOperations.addHandler(InboundBytesObserver { bound.value.bytesArrived() }, position: .first)
        if let parser = try? context.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self) {
            let observer = KeepAliveObserver { bound.value.nextHeadKeepsAlive = $0 }
            try? context.pipeline.syncOperations.addHandler(observer, position: .after(parser))
        }
        let accepted = NIODeadline.now()
        acceptedAwaitingFirstHead = accepted
        idleSince = accepted
        setTimer(for: accepted + min(settings.newConnectionTimeout, settings.idleTimeout))
        if context.channel.isActive { refuseIfOverCap(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let ticket { settings.connections.closed(ticket) }
        ticket = nil
        cancelTimer()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        refuseIfOverCap(context: context)
    }

    /// Closed once active rather than as the pipeline is set up: Hummingbird adds its own
    /// handlers after this one, which a channel already closing would refuse.
    private func refuseIfOverCap(context: ChannelHandlerContext) {
        guard let ticket, !ticket.admitted else { return }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case ChannelEvent.outputClosed:
            // Shut by this guard after an answer that closes, or by Hummingbird after a request
            // that said `Connection: close` or once the client half-closed.
            guard !inputClosed else {
                context.close(promise: nil)
                return
            }
            startLingering()
        case ChannelEvent.inputClosed:
            inputClosed = true
            if lingering {
                context.close(promise: nil)
                return
            }
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: Requests

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !lingering else { return }
        switch unwrapInboundIn(data) {
        case .head(let request):
            headStarted = nil
            acceptedAwaitingFirstHead = nil
            idleSince = nil
            awaitingHead = false
            if request.method == .connect || request.headerFields[.upgrade] != nil { closeAfterResponse = true }
            unanswered.append(!nextHeadKeepsAlive)
            let now = NIODeadline.now()
            bodyStarted = now
            setTimer(for: now + settings.bodyTimeout)
        case .body:
            break
        case .end:
            bodyStarted = nil
            awaitingHead = true
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError, !awaitingHead {
            // A body that broke: its request gets the answer its route gives (which learns of
            // the error if it reads the body), then the connection closes, as on the server's
            // own layer. Hummingbird's channel, draining the body after the answer, would answer
            // the parser's error with a second response.
            if unanswered.isEmpty {
                answeredLast = true
            } else {
                unanswered[unanswered.index(before: unanswered.endIndex)] = true
            }
        }
        context.fireErrorCaught(error)
    }

    /// Bytes arrived (`InboundBytesObserver`, in front of the parser).
    private func bytesArrived() {
        idleSince = nil
        guard awaitingHead, headStarted == nil, !lingering else { return }
        let now = NIODeadline.now()
        headStarted = now
        setTimer(for: now + settings.headTimeout)
    }

    // MARK: Answers

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !answeredLast else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head(var response) where response.status.kind != .informational:
            if response.headerFields[.connection]?.lowercased() == "close" {
                closeAfterResponse = true
            } else if closeAfterResponse {
                response.headerFields[.connection] = "close"
                context.write(wrapOutboundOut(.head(response)), promise: promise)
                return
            }
        case .head, .body:
            break
        case .end:
            // Hummingbird answers a head the parser refused without a request having begun.
            let closesQuietly = unanswered.popFirst() ?? false
            let written = promise ?? context.eventLoop.makePromise()
            lastAnswerWritten = written.futureResult
            if closeAfterResponse || closesQuietly {
                answeredLast = true
                // Shut once the answer is on the wire: a close drops the writes still queued.
                written.futureResult.whenComplete { _ in context.close(mode: .output, promise: nil) }
                context.writeAndFlush(data, promise: written)
                return
            }
            context.write(data, promise: written)
            if unanswered.isEmpty, awaitingHead, headStarted == nil {
                let now = NIODeadline.now()
                idleSince = now
                setTimer(for: now + settings.idleTimeout)
            }
            return
        }
        context.write(data, promise: promise)
    }

    /// Shuts the output once the latest answer is on the wire. Hummingbird's channel shuts it as
    /// soon as it has handed its last answer on (after `Connection: close`, or once the client
    /// half-closed), and a socket whose input is already shut then closes at once, dropping
    /// what a slow reader has not taken yet.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .output, let written = lastAnswerWritten else {
            context.close(mode: mode, promise: promise)
            return
        }
        context.flush()
        written.whenComplete { _ in context.close(mode: mode, promise: promise) }
    }

    private func startLingering() {
        guard !lingering else { return }
        lingering = true
        headStarted = nil
        bodyStarted = nil
        idleSince = nil
        let now = NIODeadline.now()
        lingerSince = now
        setTimer(for: now + Self.lingerTimeout)
    }

    // MARK: Timer

    /// Makes sure the timer fires by `deadline`: a timer already set to fire sooner is kept (it
    /// sets itself again when it fires).
    private func setTimer(for deadline: NIODeadline) {
        guard let context else { return }
        if let fires = timerFires, fires <= deadline { return }
        timer?.cancel()
        timerFires = deadline
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) { bound.value.timerFired() }
    }

    private func cancelTimer() {
        acceptedAwaitingFirstHead = nil
        headStarted = nil
        bodyStarted = nil
        idleSince = nil
        lingerSince = nil
        timer?.cancel()
        timer = nil
        timerFires = nil
    }

    private func timerFired() {
        timer = nil
        timerFires = nil
        guard let context else { return }
        let now = NIODeadline.now()
        // A head, a first head, a request after an idle spell, or the client's close, overdue.
        let closing = [
            headStarted.map { $0 + settings.headTimeout }, acceptedAwaitingFirstHead.map { $0 + settings.newConnectionTimeout },
            idleSince.map { $0 + settings.idleTimeout }, lingerSince.map { $0 + Self.lingerTimeout },
        ]
        if closing.contains(where: { $0.map { $0 <= now } ?? false }) {
            cancelTimer()
            context.close(promise: nil)
            return
        }
        if let started = bodyStarted, started + settings.bodyTimeout <= now {
            bodyStarted = nil
            closeAfterResponse = true
            // Fails the body the route reads (and Hummingbird's own read of the next request,
            // which then closes the connection).
            context.fireErrorCaught(RequestBodyTimeout(seconds: settings.bodyTimeout.nanoseconds / 1_000_000_000))
        }
        let pending = [
            headStarted.map { $0 + settings.headTimeout }, acceptedAwaitingFirstHead.map { $0 + settings.newConnectionTimeout },
            bodyStarted.map { $0 + settings.bodyTimeout }, idleSince.map { $0 + settings.idleTimeout },
            lingerSince.map { $0 + Self.lingerTimeout },
        ]
        if let next = pending.compactMap({ $0 }).min() { setTimer(for: next) }
    }
}
