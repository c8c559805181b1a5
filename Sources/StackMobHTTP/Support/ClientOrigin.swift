import HTTPTypes
import Hummingbird
import StackMobCore

/// Where a request came from, as far as the server may believe it: the socket's peer, or, when
/// that peer is one of `listen.trusted_proxies`, what the proxy's forwarding headers say. Every
/// decision that keys on the client (failure limits, the monitoring routes' loopback rule, the
/// admin cookie's `Secure`) reads it here, so none trusts a header a client could write itself.
struct ClientOrigin: Sendable {
    /// The client's IP address; nil when the socket has none (a Unix socket, a test).
    let address: String?
    /// Whether a trusted proxy forwarded the request, so that the peer is not the client.
    let isForwarded: Bool
    /// Whether any forwarding header was present at all, believed or not.
    let carriesForwardingHeaders: Bool
    /// Whether the client reached the server over TLS: said by a trusted proxy (the server itself
    /// speaks plain HTTP).
    let isSecure: Bool

    init(_ request: Request, context: StackMobRequestContext, proxies: TrustedProxies) {
        let headers = request.headers
        let forwardedFor = headers[values: .xForwardedFor]
        let forwarded = headers[values: .forwarded]
        let proto = headers[.xForwardedProto]
        carriesForwardingHeaders = !forwardedFor.isEmpty || !forwarded.isEmpty || proto != nil || headers[.xRealIP] != nil
        let peer = context.remoteAddress
        let client = proxies.client(peer: peer, forwardedFor: TrustedProxies.hops(xForwardedFor: forwardedFor, forwarded: forwarded))
        address = client.address
        isForwarded = client.forwarded
        let fromProxy = peer.map(proxies.contains) ?? false
        isSecure = fromProxy && (Self.firstValue(proto)?.lowercased() == "https" || Self.forwardedProto(forwarded) == "https")
    }

    private static func firstValue(_ header: String?) -> String? {
        header?.split(separator: ",").first?.trimmingSpaces()
    }

    /// `proto=` of the first `Forwarded` element.
    private static func forwardedProto(_ values: [String]) -> String? {
        guard let first = values.first?.split(separator: ",").first else { return nil }
        for pair in first.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingSpaces().lowercased() == "proto" {
                var value = parts[1].trimmingSpaces()
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                return value.lowercased()
            }
        }
        return nil
    }
}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
    static let forwarded = Self("Forwarded")!
    static let xRealIP = Self("X-Real-IP")!
}
