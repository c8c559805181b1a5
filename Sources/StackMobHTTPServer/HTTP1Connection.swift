import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// HTTP/1.1 as every listener serves it (API, push, HTML5 sites, monitoring): NIO's parser, then
/// one `HTTP1ConnectionHandler`, which reads each request and hands it to the connection's task
/// (`HTTP1Exchange`), and writes the response the task hands back (`HTTP1ResponseEncoder`).
///
/// It takes the place of Hummingbird's `HTTP1Channel`, which carries every connection through
/// `NIOAsyncChannel` (an async stream of request parts in, an async writer of response parts out,
/// each part converted between NIO's and swift-http-types' types in a handler of its own), and ran
/// each request in a second task for its deadline. For `HEAD /` those bridges were a large share of
/// the instructions a request cost (docs/benchmarks.md, "Figures behind design choices").
/// Hummingbird's server, router, middleware, `Request` and `Response` are used as before.
///
/// Generic over the request context only: the connection's task makes one for each request, as
/// Hummingbird's `Application` does.
struct HTTP1Connection<Context: InitializableFromSource<ApplicationRequestContextSource>>: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        let channel: any Channel
        let handler: NIOLoopBound<HTTP1ConnectionHandler>
    }

    let responder: any LocalResponder<Context>
    let settings: HTTP1ConnectionSettings

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            // NIO's parser; the handler encodes responses itself (`HTTP1ResponseEncoder`), queues
            // pipelined requests and answers a malformed one.
            try channel.pipeline.syncOperations.addHandler(
                ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: settings.decoderLimits)))
            let handler = HTTP1ConnectionHandler(settings: settings)
            try channel.pipeline.syncOperations.addHandler(handler)
            return Value(channel: channel, handler: NIOLoopBound(handler, eventLoop: channel.eventLoop))
        }
    }

    /// Hummingbird's server runs this for as long as the connection lasts, so that a graceful
    /// shutdown waits for it (the handler closes the connection after the response under way).
    /// The connection's requests are answered by a task of its own, which prefers the
    /// connection's event loop: a request is read, answered and written on one thread.
    func handle(value: Value, logger: Logger) async {
        let channel = value.channel
        let executor = EventLoopTaskExecutor(channel.eventLoop)
        let serving = ServingTask()
        await withTaskCancellationHandler {
            // A request's deadline cancels the task that answers it: the next one takes over.
            while !Task.isCancelled {
                let task = Task(executorPreference: executor) { [responder, settings] in
                    await HTTP1Exchange.serve(
                        connection: value.handler, responder: responder, channel: channel, settings: settings, logger: logger, serving: serving)
                }
                serving.set(task)
                if await task.value { break }
            }
            try? await channel.closeFuture.get()
        } onCancel: {
            serving.cancel()
            channel.close(promise: nil)
        }
    }
}

extension HTTPServerBuilder {
    /// Connections served by `HTTP1Connection` (`listen.http1_channel: native`), answered by
    /// `responder`. The responder Hummingbird hands the builder (the `Application`'s, which adds
    /// `Date` and `Server` and tags the request's logger) is not used: `HTTP1Exchange` does the
    /// same for each request.
    public static func native<Context: InitializableFromSource<ApplicationRequestContextSource>>(responder: any LocalResponder<Context>, settings: HTTP1ConnectionSettings) -> HTTPServerBuilder {
        HTTPServerBuilder { _ in HTTP1Connection(responder: responder, settings: settings) }
    }
}
