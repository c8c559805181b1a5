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
/// * **Bounds the time a request body may take** (`limits.body_timeout_seconds`). The idle
///   timeout restarts on every byte, so a client sending one byte every few seconds would hold
///   its connection, and a task, for ever. When a body is still incomplete after the timeout, the
///   request's body stream fails with `RequestBodyTimeout`: a handler reading it answers 408
///   (`ErrorMapping`), and the connection is closed after the answer.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let bodyTimeout: TimeAmount
    private var bodyDeadline: Scheduled<Void>?
    private var closeAfterResponse = false

    init(bodyTimeout: TimeAmount) {
        self.bodyTimeout = bodyTimeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if request.method == .connect || request.headerFields[.upgrade] != nil {
                closeAfterResponse = true
            }
            scheduleBodyDeadline(context: context)
        case .body:
            break
        case .end:
            bodyDeadline?.cancel()
            bodyDeadline = nil
        }
        context.fireChannelRead(data)
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
        bodyDeadline?.cancel()
        bodyDeadline = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        bodyDeadline?.cancel()
        bodyDeadline = nil
    }

    private func scheduleBodyDeadline(context: ChannelHandlerContext) {
        bodyDeadline?.cancel()
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        bodyDeadline = context.eventLoop.scheduleTask(in: bodyTimeout) {
            bound.value.handler.bodyTimedOut(context: bound.value.context)
        }
    }

    private func bodyTimedOut(context: ChannelHandlerContext) {
        bodyDeadline = nil
        closeAfterResponse = true
        // Fails the body stream the request handler reads (and the server's own read of the
        // next request, which then closes the connection).
        context.fireErrorCaught(RequestBodyTimeout(seconds: bodyTimeout.nanoseconds / 1_000_000_000))
    }
}

/// A request body that did not arrive completely within `limits.body_timeout_seconds`.
struct RequestBodyTimeout: Error, Sendable {
    let seconds: Int64
}
