import Logging
import NIOCore
import Synchronization

/// The connections one listener holds open: in all, against `limits.max_connections`, and per
/// client address, against `limits.max_connections_per_client`, so that one client cannot take
/// every slot. Shared by every connection's `HTTP1ConnectionHandler`, on any event loop.
///
/// Trusted proxies (`listen.trusted_proxies`, `isTrustedProxy`) are not counted per address:
/// behind a proxy every client arrives from the proxy's address, and the proxy caps its clients
/// itself.
///
/// An IPv6 client is counted by its /64 (`clientKey`): a host is given a whole /64 and can
/// connect from any address in it, so counting single addresses would not cap it at all.
public final class ConnectionCounter: Sendable {
    public let limit: Int
    public let limitPerClient: Int
    private let isTrustedProxy: @Sendable (String) -> Bool
    private let open = Atomic<Int>(0)
    /// The connections open now, admitted or being refused (the console's overview shows it).
    public var openCount: Int { open.load(ordering: .relaxed) }
    /// Open connections by client address; an address leaves when its last connection closes,
    /// so the table holds no more entries than connections.
    private let perClient = Mutex<[String: Int]>([:])
    /// When a refusal was last logged (seconds on the monotonic clock), so a flood of refused
    /// connections writes one line every 10 seconds, not one each.
    private let lastLogged = Atomic<Int64>(-10)
    private let logger: Logger

    /// `isTrustedProxy` is given a peer's address as `SocketAddress.ipAddress` writes it.
    public init(limit: Int, limitPerClient: Int, isTrustedProxy: @escaping @Sendable (String) -> Bool, logger: Logger) {
        self.limit = limit
        self.limitPerClient = limitPerClient
        self.isTrustedProxy = isTrustedProxy
        self.logger = logger
    }

    /// A connection as counted: close it with `closed(_:)`, admitted or not.
    struct Ticket: Sendable {
        let admitted: Bool
        /// The address it was counted under; nil when it was not counted per address.
        fileprivate let client: String?
    }

    /// Counts a new connection from `peer`; not admitted when it is one too many for the listener
    /// or for its client (it is still counted until `closed(_:)`).
    func opened(peer: SocketAddress?) -> Ticket {
        let count = open.wrappingAdd(1, ordering: .relaxed).newValue
        var client: String?
        var fromClient = 0
        if let peer, let address = peer.ipAddress, !isTrustedProxy(address) {
            let key = Self.clientKey(peer) ?? address
            client = key
            fromClient = perClient.withLock { table in
                let count = table[key, default: 0] + 1
                table[key] = count
                return count
            }
        }
        if count > limit {
            logRefusal("Connection refused: the listener holds limits.max_connections connections", ["sm.limit": "\(limit)"])
            return Ticket(admitted: false, client: client)
        }
        if fromClient > limitPerClient {
            logRefusal(
                "Connection refused: the client holds limits.max_connections_per_client connections",
                ["sm.limit": "\(limitPerClient)", "sm.client": "\(client ?? "")"])
            return Ticket(admitted: false, client: client)
        }
        return Ticket(admitted: true, client: client)
    }

    /// What a client is counted under: an IPv4 address as it is (an IPv4-mapped IPv6 address as
    /// its IPv4 address), an IPv6 address by its first 64 bits, written `<prefix>::/64`.
    package static func clientKey(_ peer: SocketAddress) -> String? {
        guard case .v6(let address) = peer else { return peer.ipAddress }
        let bytes = withUnsafeBytes(of: address.address.sin6_addr) { Array($0) }
        guard bytes.count == 16 else { return peer.ipAddress }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            return bytes[12..<16].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }

    func closed(_ ticket: Ticket) {
        open.wrappingSubtract(1, ordering: .relaxed)
        guard let client = ticket.client else { return }
        perClient.withLock { table in
            let count = table[client, default: 1] - 1
            table[client] = count > 0 ? count : nil
        }
    }

    private func logRefusal(_ message: Logger.Message, _ metadata: Logger.Metadata) {
        let now = Self.start.duration(to: .now).components.seconds
        let last = lastLogged.load(ordering: .relaxed)
        if now - last >= 10, lastLogged.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged {
            logger.warning(message, metadata: metadata)
        }
    }

    private static let start = ContinuousClock.now
}
