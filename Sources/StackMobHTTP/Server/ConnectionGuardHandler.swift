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
    private var headDeadline: Scheduled<Void>?
    private var bodyDeadline: Scheduled<Void>?
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
            headDeadline?.cancel()
            headDeadline = nil
            awaitingHead = false
            if request.method == .connect || request.headerFields[.upgrade] != nil {
                closeAfterResponse = true
            }
            scheduleBodyDeadline(context: context)
        case .body:
            break
        case .end:
            bodyDeadline?.cancel()
            bodyDeadline = nil
            awaitingHead = true
        }
        context.fireChannelRead(data)
    }

    private func bytesArrived(context: ChannelHandlerContext) {
        guard awaitingHead, headDeadline == nil else { return }
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        headDeadline = context.eventLoop.scheduleTask(in: limits.headTimeout) {
            bound.value.close(promise: nil)
        }
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
        headDeadline?.cancel()
        headDeadline = nil
        bodyDeadline?.cancel()
        bodyDeadline = nil
    }

    private func scheduleBodyDeadline(context: ChannelHandlerContext) {
        bodyDeadline?.cancel()
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        bodyDeadline = context.eventLoop.scheduleTask(in: limits.bodyTimeout) {
            bound.value.handler.bodyTimedOut(context: bound.value.context)
        }
    }

    private func bodyTimedOut(context: ChannelHandlerContext) {
        bodyDeadline = nil
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
