/// Device tokens address real devices: request logs show only their first 8 characters.
enum PushTokenPath {
    /// `/tokens/<type>/<token>` → `/tokens/<type>/<first 8 characters>…`; other paths unchanged.
    /// Empty segments are skipped as the router skips them (`//tokens/ios/<token>/` matches too).
    static func redacted(_ path: String) -> String {
        // Every request's log line passes through here; only the token paths need the split.
        guard path.utf8.drop(while: { $0 == UInt8(ascii: "/") }).starts(with: "tokens/".utf8) else { return path }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count == 3, segments[0] == "tokens", segments[2].count > 8 else { return path }
        return "/tokens/\(segments[1])/\(segments[2].prefix(8))…"
    }

    /// `/tokens/<type>/<token>` → its route template, `/tokens/{type}/{token}`: what the traffic
    /// pages keep, where not even a token's start is needed. Other paths unchanged.
    static func template(_ path: String) -> String {
        guard path.utf8.drop(while: { $0 == UInt8(ascii: "/") }).starts(with: "tokens/".utf8) else { return path }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count == 3, segments[0] == "tokens" else { return path }
        return "/tokens/{type}/{token}"
    }
}
