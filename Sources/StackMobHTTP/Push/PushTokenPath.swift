/// Device tokens address real devices: request logs show only their first 8 characters.
enum PushTokenPath {
    /// `/tokens/<type>/<token>` → `/tokens/<type>/<first 8 characters>…`; other paths unchanged.
    static func redacted(_ path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == 4, segments[0].isEmpty, segments[1] == "tokens", segments[3].count > 8 else { return path }
        return "/tokens/\(segments[2])/\(segments[3].prefix(8))…"
    }
}
