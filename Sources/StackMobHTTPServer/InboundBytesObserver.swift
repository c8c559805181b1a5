import NIOCore

/// Tells its owner that bytes arrived, before any HTTP decoding: the only place where the start
/// of a request that never completes its head can be seen. Added at the front of the pipeline by
/// `HTTP1ConnectionHandler`, on the same event loop, so the callback needs no synchronisation.
final class InboundBytesObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let onRead: () -> Void

    init(onRead: @escaping () -> Void) {
        self.onRead = onRead
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        onRead()
        context.fireChannelRead(data)
    }
}
