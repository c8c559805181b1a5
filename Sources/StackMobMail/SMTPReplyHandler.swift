import NIOCore

/// Turns the bytes the server sends into replies on an async stream. Stays last in the
/// pipeline, so that after STARTTLS it receives the decrypted bytes of the TLS handler in
/// front of it.
final class SMTPReplyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private var parser = SMTPReplyParser()
    private let continuation: AsyncThrowingStream<SMTPReply, any Error>.Continuation

    init(continuation: AsyncThrowingStream<SMTPReply, any Error>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        do {
            for reply in try parser.feed(buffer.readableBytesView) { continuation.yield(reply) }
        } catch {
            continuation.finish(throwing: error)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish(throwing: error)
        context.close(promise: nil)
    }
}
