import HummingbirdCore
import NIOCore
import Synchronization

/// A connection set up for Hummingbird's channel (`EventLoopBoundChannel`), which closes it if it
/// is dropped before it is handled.
///
/// NIO's async server bootstrap drops a connection accepted as the listener closes: the
/// connection is set up on its own event loop, and by the time it is handed back the listener's
/// stream has finished. Its `NIOAsyncChannel` then goes unhandled, and NIO traps when the
/// writer of an async channel is released unfinished, which it is as soon as the connection
/// becomes active. Finishing the channel here keeps a listener's stop under load (a test's end,
/// a rolling restart) from bringing the whole process down.
final class AcceptedConnection<Inbound: Sendable, Outbound: Sendable>: ServerChildChannelValue {
    let asyncChannel: NIOAsyncChannel<Inbound, Outbound>
    private let handled = Atomic<Bool>(false)

    init(_ asyncChannel: NIOAsyncChannel<Inbound, Outbound>) {
        self.asyncChannel = asyncChannel
    }

    var channel: any Channel { asyncChannel.channel }

    /// Hands the connection to `body`, which owns it from then on (Hummingbird's handler runs it
    /// in `executeThenClose`, which finishes its writer).
    func handle(_ body: (NIOAsyncChannel<Inbound, Outbound>) async -> Void) async {
        handled.store(true, ordering: .relaxed)
        await body(asyncChannel)
    }

    deinit {
        guard !handled.load(ordering: .relaxed) else { return }
        // The only way to finish the writer that NIO does not deprecate is `executeThenClose`,
        // which is async; the task keeps the writer alive until it has finished it.
        let asyncChannel = self.asyncChannel
        Task { try? await asyncChannel.executeThenClose { _, _ in } }
    }
}
