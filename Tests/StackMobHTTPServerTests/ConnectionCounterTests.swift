import Logging
import NIOCore
import Testing

@testable import StackMobHTTPServer

/// The per-client connection cap against a client that spreads its connections over addresses.
@Suite("Connections per client")
struct ConnectionCounterTests {
    static func peer(_ address: String) throws -> SocketAddress {
        try SocketAddress(ipAddress: address, port: 40_000)
    }

    @Test("an IPv6 client is one client across its /64; another /64 is another client")
    func ipv6PerPrefix() throws {
        let counter = ConnectionCounter(limit: 100, limitPerClient: 2, isTrustedProxy: { _ in false }, logger: Logger(label: "test"))
        let first = counter.opened(peer: try Self.peer("2001:db8:0:7::1"))
        let second = counter.opened(peer: try Self.peer("2001:db8:0:7::2"))
        let third = counter.opened(peer: try Self.peer("2001:db8:0:7:ffff:ffff:ffff:ffff"))
        #expect(first.admitted && second.admitted)
        #expect(!third.admitted, "a third address of the same /64 was admitted past a cap of 2")
        let neighbour = counter.opened(peer: try Self.peer("2001:db8:0:8::1"))
        #expect(neighbour.admitted, "the next /64 is someone else")
        // Closing one of the three lets the prefix open one again.
        counter.closed(third)
        counter.closed(first)
        #expect(counter.opened(peer: try Self.peer("2001:db8:0:7::3")).admitted)
    }

    @Test("keys: IPv4 as it is, IPv4-mapped IPv6 as its IPv4 address, IPv6 by its first 64 bits", arguments: [
        ("192.0.2.7", "192.0.2.7"),
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("2001:db8:0:7::1", "2001:db8:0:7::/64"),
        ("2001:db8:aa:bb:1:2:3:4", "2001:db8:aa:bb::/64"),
        ("::1", "0:0:0:0::/64"),
    ])
    func keys(address: String, key: String) throws {
        #expect(ConnectionCounter.clientKey(try Self.peer(address)) == key)
    }

    @Test("an IPv4 client is capped by its address; a trusted proxy is not capped")
    func ipv4AndProxies() throws {
        let counter = ConnectionCounter(
            limit: 100, limitPerClient: 1, isTrustedProxy: { $0 == "198.51.100.1" }, logger: Logger(label: "test"))
        #expect(counter.opened(peer: try Self.peer("192.0.2.7")).admitted)
        #expect(!counter.opened(peer: try Self.peer("192.0.2.7")).admitted)
        #expect(counter.opened(peer: try Self.peer("192.0.2.8")).admitted)
        #expect(counter.opened(peer: try Self.peer("198.51.100.1")).admitted)
        #expect(counter.opened(peer: try Self.peer("198.51.100.1")).admitted)
    }
}
