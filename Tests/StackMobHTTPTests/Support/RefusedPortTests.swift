import NIOCore
import NIOPosix
import StackMobTestSupport
import Testing

/// The tests of unreachable providers, hooks and databases rely on these two properties; when
/// the port could be taken by another test's server, they failed now and then under the
/// parallel suite.
@Suite("Test support: a refused port")
struct RefusedPortTests {
    @Test("connections are refused, and no server can take the port while it is held")
    func refusedAndReserved() async throws {
        try await RefusedPort.with { port in
            await #expect(throws: (any Error).self) { _ = try await RawConnection.connect(port: port) }
            // NIO's servers bind with SO_REUSEADDR, as Hummingbird's and the stubs' do.
            await #expect(throws: (any Error).self) {
                let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                    .bind(host: "127.0.0.1", port: port).get()
                try await channel.close()
            }
        }
    }
}
