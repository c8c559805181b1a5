/// The request-uris, hosts and ports a MAC may have been computed over (PROTOCOL §3.2, D19).
///
/// The SDKs disagree on how the query is encoded when signed (JS: as built, Java: encoded, iOS:
/// decoded except some escapes), and a TLS proxy hides the client-visible port; the server tries
/// every form the client may have seen.
public enum MACCandidates {
    /// Escapes the iOS SDK keeps encoded when it signs a query.
    static let iOSKeptEscapes: Set<UInt8> = Set(": / . ? & = ; + ! @ # $ ( ) ~  ".utf8)

    public static func requestURIs(target: String) -> [String] {
        var candidates = [target]
        guard let question = target.firstIndex(of: "?") else { return candidates }
        let path = String(target[..<question])
        let query = target[target.index(after: question)...]
        if query.isEmpty {
            candidates.append(path)
            return candidates
        }
        for decoded in [percentDecode(query, keeping: []), percentDecode(query, keeping: iOSKeptEscapes)] {
            if let decoded, !candidates.contains(path + "?" + decoded) { candidates.append(path + "?" + decoded) }
        }
        return candidates
    }

    /// (host, ports) from the `Host` header and the proxy headers.
    public static func hostAndPorts(host hostHeader: String?, forwardedProto: String?, forwardedPort: String?) -> (host: String, ports: [Int])? {
        guard let hostHeader, !hostHeader.isEmpty else { return nil }
        var host = hostHeader
        var explicitPort: Int?
        if hostHeader.hasPrefix("[") {
            // IPv6 literal: "[::1]:8080".
            if let close = hostHeader.firstIndex(of: "]") {
                host = String(hostHeader[...close])
                let rest = hostHeader[hostHeader.index(after: close)...]
                if rest.hasPrefix(":") { explicitPort = Int(rest.dropFirst()) }
            }
        } else if let colon = hostHeader.lastIndex(of: ":") {
            host = String(hostHeader[..<colon])
            explicitPort = Int(hostHeader[hostHeader.index(after: colon)...])
        }
        var ports: [Int] = []
        // Behind a TLS terminator the Host header may name the proxy's port or none at all.
        if let forwarded = forwardedPort.flatMap({ Int($0.split(separator: ",").first?.trimmingSpaces() ?? "") }) {
            ports.append(forwarded)
        }
        if let explicitPort { ports.append(explicitPort) }
        switch forwardedProto?.split(separator: ",").first?.trimmingSpaces().lowercased() {
        case "https"?: ports.append(443)
        case "http"?: ports.append(80)
        default: if explicitPort == nil { ports += [80, 443] }
        }
        var unique: [Int] = []
        for port in ports where !unique.contains(port) { unique.append(port) }
        return (host, unique)
    }

    /// Decodes `%XX` escapes except those decoding to a byte in `keeping`; nil when malformed.
    static func percentDecode(_ text: Substring, keeping: Set<UInt8>) -> String? {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = HexDigit.value(bytes[index + 1]), let low = HexDigit.value(bytes[index + 2]) else { return nil }
                let value = high << 4 | low
                if keeping.contains(value) {
                    output += bytes[index...index + 2]
                } else {
                    output.append(value)
                }
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(validating: output, as: UTF8.self)
    }

}
