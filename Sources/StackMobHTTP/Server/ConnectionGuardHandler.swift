import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Keeps one HTTP/1.1 connection usable, and bounded in time, whatever its client sends.
///
/// It sits in each connection's pipeline just after HTTP decoding, and does two things:
///
/// * **Closes the connection after answering a request that left HTTP/1.1.** After a request
///   carrying `Upgrade` (e.g. `websocket`), or a `CONNECT`, NIO's decoder stops parsing: every
///   later byte on the connection would be taken for the upgraded protocol and silently dropped,
///   so a client reusing the connection would hang until the idle timeout. The server upgrades
///   to nothing, so it answers the request as usual, with `Connection: close`, and closes. Any
///   response that says `Connection: close` (a body timeout) is followed by a close too.
/// * **Bounds the time a request may take to arrive.** The idle timeout restarts on every byte,
///   so a client sending one byte every few seconds would hold its connection, and a task, for
///   ever. A request head (request line and headers) still incomplete
///   `limits.header_timeout_seconds` after its first byte closes the connection (no answer can be
///   framed for a request that has no head yet). A body still incomplete
///   `limits.body_timeout_seconds` after the head fails the request's body stream with
///   `RequestBodyTimeout`: a handler reading it answers 408 (`ErrorMapping`), and the connection
///   is closed after the answer.
/// * **Caps the connections a listener holds** (`limits.max_connections`, `ConnectionCounter`):
///   one past the cap is closed as soon as it is accepted.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    struct Limits {
        var headTimeout: TimeAmount
        var bodyTimeout: TimeAmount
    }

    private let limits: Limits
    private let connections: ConnectionCounter
    /// When the head under way began to arrive; nil between requests and once it is complete.
    private var headStarted: NIODeadline?
    /// When the body under way began (its head arrived); nil once the request is complete.
    private var bodyStarted: NIODeadline?
    /// One timer for both deadlines, set to fire at `timerFires`. A request that completes leaves
    /// it set rather than cancelling it; when it fires it acts only on a deadline that really
    /// passed, then is set again for the next one still pending. Per request that is two clock
    /// reads, where a timer set and cancelled for each deadline was an allocation, a heap
    /// insertion and a failed promise, twice.
    private var timer: Scheduled<Void>?
    private var timerFires: NIODeadline?
    /// Between requests: the next bytes start the next request's head.
    private var awaitingHead = true
    private var closeAfterResponse = false

    init(limits: Limits, connections: ConnectionCounter) {
        self.limits = limits
        self.connections = connections
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard connections.opened() else {
            context.close(promise: nil)
            return
        }
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        let observer = InboundBytesObserver { bound.value.handler.bytesArrived(context: bound.value.context) }
        try? context.pipeline.syncOperations.addHandler(observer, position: .first)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        connections.closed()
        cancelDeadlines()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            headStarted = nil
            awaitingHead = false
            if request.method == .connect || request.headerFields[.upgrade] != nil {
                closeAfterResponse = true
            }
            let now = NIODeadline.now()
            bodyStarted = now
            setTimer(for: now + limits.bodyTimeout, context: context)
        case .body:
            break
        case .end:
            bodyStarted = nil
            awaitingHead = true
        }
        context.fireChannelRead(data)
    }

    private func bytesArrived(context: ChannelHandlerContext) {
        guard awaitingHead, headStarted == nil else { return }
        let now = NIODeadline.now()
        headStarted = now
        setTimer(for: now + limits.headTimeout, context: context)
    }

    /// Makes sure the timer fires by `deadline`: a timer already set to fire sooner is kept (it
    /// sets itself again when it fires).
    private func setTimer(for deadline: NIODeadline, context: ChannelHandlerContext) {
        if let fires = timerFires, fires <= deadline { return }
        timer?.cancel()
        timerFires = deadline
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) {
            bound.value.handler.timerFired(context: bound.value.context)
        }
    }

    private func timerFired(context: ChannelHandlerContext) {
        timer = nil
        timerFires = nil
        let now = NIODeadline.now()
        if let started = headStarted, started + limits.headTimeout <= now {
            // No answer can be framed for a request that has no head yet.
            context.close(promise: nil)
            return
        }
        if let started = bodyStarted, started + limits.bodyTimeout <= now {
            bodyStarted = nil
            bodyTimedOut(context: context)
        }
        let pending = [headStarted.map { $0 + limits.headTimeout }, bodyStarted.map { $0 + limits.bodyTimeout }].compactMap { $0 }
        if let next = pending.min() { setTimer(for: next, context: context) }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var response):
            if response.headerFields[.connection]?.lowercased() == "close" {
                closeAfterResponse = true
            } else if closeAfterResponse {
                response.headerFields[.connection] = "close"
                context.write(wrapOutboundOut(.head(response)), promise: promise)
                return
            }
        case .body:
            break
        case .end:
            guard closeAfterResponse else { break }
            // Closed once the answer is on the wire: a close fails the writes still pending.
            let written = promise ?? context.eventLoop.makePromise()
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            context.writeAndFlush(data, promise: written)
            return
        }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelDeadlines()
        context.fireChannelInactive()
    }

    private func cancelDeadlines() {
        headStarted = nil
        bodyStarted = nil
        timer?.cancel()
        timer = nil
        timerFires = nil
    }

    private func bodyTimedOut(context: ChannelHandlerContext) {
        closeAfterResponse = true
        // Fails the body stream the request handler reads (and the server's own read of the
        // next request, which then closes the connection).
        context.fireErrorCaught(RequestBodyTimeout(seconds: limits.bodyTimeout.nanoseconds / 1_000_000_000))
    }
}

/// A request body that did not arrive completely within `limits.body_timeout_seconds`.
struct RequestBodyTimeout: Error, Sendable {
    let seconds: Int64
}
