import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import Testing

@testable import StackMobHTTPServer

/// A connection on Hummingbird's channel that the listener drops before handling it: NIO's async
/// server bootstrap does so with a connection accepted as the listener closes.
@Suite("Connections dropped by Hummingbird's listener")
struct AcceptedConnectionTests {
    @Test("a connection set up and dropped before it becomes active is closed, and the process does not trap")
    func droppedConnectionCloses() async throws {
        let channel = EventLoopBoundChannel(base: HTTP1Channel(responder: { _, _, _ in }))
        let logger = Logger(label: "accepted-connection-test")
        let group = MultiThreadedEventLoopGroup.singleton
        // Set up as the listener sets up a connection, then dropped, as the listener's finished
        // stream drops it; the connection becomes active after this initializer returns.
        let server = try await ServerBootstrap(group: group)
            .childChannelInitializer { child in channel.setup(channel: child, logger: logger).map { _ in () } }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { server.close(promise: nil) }
        let client = try await ClientBootstrap(group: group).connect(to: server.localAddress!).get()
        defer { client.close(promise: nil) }

        let closedByServer = try await withThrowingTaskGroup(of: Bool.self) { tasks in
            tasks.addTask {
                try await client.closeFuture.get()
                return true
            }
            tasks.addTask {
                try await Task.sleep(for: .seconds(10))
                return false
            }
            let first = try await tasks.next()!
            tasks.cancelAll()
            return first
        }
        #expect(closedByServer)
    }
}
