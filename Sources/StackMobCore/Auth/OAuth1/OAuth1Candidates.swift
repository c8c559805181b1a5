/// The base URLs and parameter strings an OAuth 1.0 client may have signed for a request
/// (PROTOCOL §3.3).
///
/// iOS drops the default port and signs the query as it appears in the URL; Java keeps the port
/// as written and decodes then re-encodes the query. A TLS proxy hides the scheme unless it sets
/// `X-Forwarded-Proto`. The server tries every form a client may have seen.
public enum OAuth1Candidates {
    /// `scheme://lower(host)[:port]/path` forms: scheme from `X-Forwarded-Proto`, else http and
    /// https; each default port both omitted and written.
    public static func baseURLs(path: some StringProtocol, host hostHeader: String?, forwardedProto: String?, forwardedPort: String?) -> [String] {
        guard let (host, ports) = MACCandidates.hostAndPorts(host: hostHeader, forwardedProto: forwardedProto, forwardedPort: forwardedPort)
        else { return [] }
        let lowerHost = host.lowercased()
        let schemes: [String]
        switch forwardedProto?.split(separator: ",").first?.trimmingSpaces().lowercased() {
        case "https"?: schemes = ["https"]
        case "http"?: schemes = ["http"]
        default: schemes = ["http", "https"]
        }
        let path = path.isEmpty ? "/" : String(path)
        var candidates: [String] = []
        for scheme in schemes {
            let defaultPort = scheme == "https" ? 443 : 80
            for port in ports {
                if port == defaultPort { candidates.append("\(scheme)://\(lowerHost)\(path)") }
                candidates.append("\(scheme)://\(lowerHost):\(port)\(path)")
            }
            if !ports.contains(defaultPort) { candidates.append("\(scheme)://\(lowerHost)\(path)") }
        }
        var unique: [String] = []
        for candidate in candidates where !unique.contains(candidate) { unique.append(candidate) }
        return unique
    }

    /// Normalized parameter strings: the oauth parameters (RFC-encoded) plus the query
    /// parameters (a) as received, (b) decoded then RFC-encoded, (c) as received then encoded
    /// once more (a client that encoded what it read from the URL).
    public static func normalizedParameters(oauth: [(name: String, value: String)], rawQuery: Substring?) -> [String] {
        let oauthPairs = oauth.map { (name: OAuth1Encoding.encode($0.name), value: OAuth1Encoding.encode($0.value)) }
        let raw = rawQuery.map { OAuth1Signature.rawQueryPairs($0) } ?? []
        var variants: [[(name: String, value: String)]] = [raw]
        let decoded = raw.compactMap { pair -> (name: String, value: String)? in
            guard let name = OAuth1Encoding.decode(pair.name, plusIsSpace: true), let value = OAuth1Encoding.decode(pair.value, plusIsSpace: true)
            else { return nil }
            return (OAuth1Encoding.encode(name), OAuth1Encoding.encode(value))
        }
        if decoded.count == raw.count { variants.append(decoded) }
        variants.append(raw.map { (OAuth1Encoding.encode($0.name), OAuth1Encoding.encode($0.value)) })
        var strings: [String] = []
        for variant in variants {
            let normalized = OAuth1Signature.normalizedParameters(oauthPairs + variant)
            if !strings.contains(normalized) { strings.append(normalized) }
        }
        return strings
    }
}
