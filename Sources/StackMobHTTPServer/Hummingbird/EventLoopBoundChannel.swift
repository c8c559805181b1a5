import HummingbirdCore
import Logging
import NIOCore

/// A listener's connections on Hummingbird's HTTP/1.1 channel, each handled by a task that
/// prefers its socket's event loop (`EventLoopTaskExecutor`): without it, every request on
/// Hummingbird's channel would cross from the loop to Swift's pool and back. A connection the
/// listener drops before handling it is closed (`AcceptedConnection`).
struct EventLoopBoundChannel<Inbound: Sendable, Outbound: Sendable, Base: ServerChildChannel>: ServerChildChannel
where Base.Value == NIOAsyncChannel<Inbound, Outbound> {
    typealias Value = AcceptedConnection<Inbound, Outbound>
    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).map { AcceptedConnection($0) }
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await value.handle { await base.handle(value: $0, logger: logger) }
        }
    }
}
