#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `listen.trusted_proxies`: the peers whose forwarding headers (`X-Forwarded-For`,
/// `Forwarded`, `X-Forwarded-Proto`) the server believes. Anyone else could write those headers
/// to pose as any address, so from them the socket's address is the client's. The default is
/// loopback, where the documented TLS proxy runs (docs/security.md, "Behind a TLS proxy").
public struct TrustedProxies: Sendable, Equatable {
    /// The configured entries as written, for the error messages and the docs.
    public let entries: [String]
    private let networks: [Network]

    public static let loopback = try! TrustedProxies(["127.0.0.0/8", "::1"])
    public static let none = try! TrustedProxies([])

    /// - Throws: the first entry that is neither an address nor `address/prefix`, as its text.
    public init(_ entries: [String]) throws(EntryError) {
        self.entries = entries
        networks = try entries.map { entry throws(EntryError) in
            guard let network = Network(entry) else { throw EntryError(entry: entry) }
            return network
        }
    }

    public struct EntryError: Error, Sendable {
        public let entry: String
    }

    /// Whether `address` (an IP address as the socket reports it) is one of the proxies.
    public func contains(_ address: String) -> Bool {
        guard !networks.isEmpty, let bytes = Network.bytes(of: address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// The client a request came from: the socket's peer, or, when the peer is a trusted proxy
    /// that forwarded it, the nearest address in the chain that is not itself a trusted proxy.
    /// `forwardedFor` is every `X-Forwarded-For` value (or, without any, the `for=` parameters
    /// of `Forwarded`), in order; proxies append, so the chain is walked from its end: entries
    /// further left were written by the client and prove nothing.
    public func client(peer: String?, forwardedFor: [String]) -> (address: String?, forwarded: Bool) {
        guard let peer, contains(peer), !forwardedFor.isEmpty else { return (peer, false) }
        var nearest = peer
        for hop in forwardedFor.reversed() {
            guard let address = Self.address(ofHop: hop) else { break }
            nearest = address
            if !contains(address) { break }
        }
        return (nearest, true)
    }

    /// The addresses one header value lists: `X-Forwarded-For: a, b` or `Forwarded: for=a;proto=https, for="[b]:443"`.
    public static func hops(xForwardedFor values: [String], forwarded: [String]) -> [String] {
        if !values.isEmpty {
            return values.flatMap { $0.split(separator: ",").map { $0.trimmingSpaces() } }
        }
        return forwarded.flatMap { value in
            value.split(separator: ",").compactMap { element -> String? in
                for pair in element.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2, parts[0].trimmingSpaces().lowercased() == "for" else { continue }
                    var text = parts[1].trimmingSpaces()
                    if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
                    return text
                }
                return nil
            }
        }
    }

    /// The address a hop names, without a port (`1.2.3.4:5678`, `[::1]:443`); nil for anything
    /// that is not an address (`unknown`, an obfuscated `_hidden` identifier).
    static func address(ofHop hop: String) -> String? {
        var text = Substring(hop)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.filter({ $0 == ":" }).count == 1 {
            text = text[..<text.firstIndex(of: ":")!]
        }
        let address = String(text)
        return Network.bytes(of: address) == nil ? nil : address
    }

    /// An address with a prefix length, as bytes (4 for IPv4, 16 for IPv6).
    private struct Network: Sendable, Equatable {
        let bytes: [UInt8]
        let prefix: Int

        init?(_ entry: String) {
            let parts = entry.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2, let bytes = Self.bytes(of: String(parts[0])) else { return nil }
            let bits = bytes.count * 8
            if parts.count == 2 {
                guard let prefix = Int(parts[1]), (0...bits).contains(prefix) else { return nil }
                self.prefix = prefix
            } else {
                prefix = bits
            }
            self.bytes = bytes
        }

        func contains(_ address: [UInt8]) -> Bool {
            // An IPv4 peer on a dual-stack socket is reported as `::ffff:a.b.c.d`.
            let address = bytes.count == 4 && address.count == 16 && address.prefix(12) == Self.mappedPrefix[...] ? Array(address.suffix(4)) : address
            guard address.count == bytes.count else { return false }
            var remaining = prefix
            for (mine, theirs) in zip(bytes, address) where remaining > 0 {
                let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
                guard mine & mask == theirs & mask else { return false }
                remaining -= 8
            }
            return true
        }

        static let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]

        /// The bytes of an IPv4 or IPv6 address in text; nil for anything else.
        static func bytes(of text: String) -> [UInt8]? {
            var v4 = in_addr()
            if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
            var v6 = in6_addr()
            if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
            return nil
        }
    }
}
