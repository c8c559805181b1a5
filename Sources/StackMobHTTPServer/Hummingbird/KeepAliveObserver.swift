import NIOCore
import NIOHTTP1

/// Tells the guard whether each request head keeps its connection alive, from NIO's parts, before
/// Hummingbird converts them to swift-http-types', which have no HTTP version: an HTTP/1.0 request
/// without `Connection: keep-alive` ends its connection after the answer, which Hummingbird's
/// channel does not do by itself (it closes only after `Connection: close`).
final class KeepAliveObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let onHead: (_ keepAlive: Bool) -> Void

    init(onHead: @escaping (_ keepAlive: Bool) -> Void) {
        self.onHead = onHead
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) { onHead(head.isKeepAlive) }
        context.fireChannelRead(data)
    }
}
