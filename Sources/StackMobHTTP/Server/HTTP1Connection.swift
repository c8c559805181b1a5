import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// HTTP/1.1 as every listener serves it (API, push, HTML5 sites, monitoring): NIO's parser and
/// encoder, then one `HTTP1ConnectionHandler`, which reads each request, runs it in a task of its
/// own on the connection's event loop (`HTTP1Exchange`) and writes its response back.
///
/// It takes the place of Hummingbird's `HTTP1Channel`, which carries every connection through
/// `NIOAsyncChannel` (an async stream of request parts in, an async writer of response parts out,
/// each part converted between NIO's and swift-http-types' types in a handler of its own) to one
/// task per connection, and ran each request in a second task for its deadline. For `HEAD /`
/// those bridges were over a third of the instructions a request cost (issue 19). Hummingbird's
/// server, router, middleware, `Request` and `Response` are used as before.
struct HTTP1Connection: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        let channel: any Channel
    }

    let responder: any HTTPResponder<StackMobRequestContext>
    let settings: HTTP1ConnectionSettings

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                // Pipelined requests are queued by the handler, and a malformed one answered by it.
                withPipeliningAssistance: false, withErrorHandling: false,
                // swift-http-types validated the response's fields.
                withOutboundHeaderValidation: false, withEncoderConfiguration: .init(),
                withDecoderLimitConfiguration: settings.decoderLimits)
            try channel.pipeline.syncOperations.addHandler(
                HTTP1ConnectionHandler(responder: responder, settings: settings, logger: logger, eventLoop: channel.eventLoop))
            return Value(channel: channel)
        }
    }

    /// The connection's task in Hummingbird's server lasts as long as the connection, so that a
    /// graceful shutdown waits for it: the handler closes it after the response under way.
    func handle(value: Value, logger: Logger) async {
        let channel = value.channel
        await withTaskCancellationHandler {
            try? await channel.closeFuture.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }
}

extension HTTPServerBuilder {
    /// Connections served by `HTTP1Connection`, answered by `responder`. The responder Hummingbird
    /// hands the builder (the `Application`'s, which adds `Date` and `Server` and tags the
    /// request's logger) is not used: `HTTP1Exchange` does the same for each request.
    static func stackMob(responder: any HTTPResponder<StackMobRequestContext>, settings: HTTP1ConnectionSettings) -> HTTPServerBuilder {
        HTTPServerBuilder { _ in HTTP1Connection(responder: responder, settings: settings) }
    }
}
