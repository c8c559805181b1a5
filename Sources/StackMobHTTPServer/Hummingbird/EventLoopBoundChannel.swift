import HummingbirdCore
import Logging
import NIOCore

/// A listener's connections, each handled by a task that prefers its socket's event loop
/// (`EventLoopTaskExecutor`): the HTTP/1.1 channel of `base`, unchanged otherwise. Without it,
/// every request on Hummingbird's channel would cross from the loop to Swift's pool and back.
struct EventLoopBoundChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await base.handle(value: value, logger: logger)
        }
    }
}
