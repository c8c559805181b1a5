/// The query string's parameters, keys and values percent-decoded (PROTOCOL §2.2).
///
/// Hummingbird decodes values but not keys, and the Java SDK encodes keys (`age%5Blt%5D=25`), so
/// the raw query is split and decoded here. `+` stays a plus: no SDK encodes spaces as `+` in
/// queries.
enum QueryString {
    static func parameters(_ rawQuery: String?) throws(RequestError) -> [(key: String, value: String)] {
        guard let rawQuery, !rawQuery.isEmpty else { return [] }
        var parameters: [(key: String, value: String)] = []
        for pair in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = try PathSegment.decode(parts[0])
            let value = parts.count > 1 ? try PathSegment.decode(parts[1]) : ""
            parameters.append((key, value))
        }
        return parameters
    }
}
