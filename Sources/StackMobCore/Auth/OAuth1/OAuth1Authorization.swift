import Foundation

/// A parsed `Authorization: OAuth …` header (RFC 5849 §3.5.1, PROTOCOL §3.3).
///
/// Tolerant of both SDK shapes: iOS `OAuth realm="…",k="v",…` (no spaces) and Java
/// `OAuth k="v", k="v"` (comma and space). Values are percent-decoded; `realm` is not signed.
public struct OAuth1Authorization: Sendable, Equatable {
    /// Every `oauth_*` parameter except `oauth_signature`, decoded: they enter the base string.
    public var parameters: [(name: String, value: String)]
    public var signature: String

    public var consumerKey: String? { value("oauth_consumer_key") }
    public var nonce: String? { value("oauth_nonce") }
    public var timestamp: Int64? { value("oauth_timestamp").flatMap { Int64($0) } }
    public var signatureMethod: String? { value("oauth_signature_method") }
    public var version: String? { value("oauth_version") }

    public func value(_ name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    /// Nil when the header is not `OAuth` followed by `name="value"` pairs, a pair repeats, or
    /// `oauth_signature` is missing.
    public static func parse(_ header: String) -> OAuth1Authorization? {
        guard header.count > 6, header.prefix(6).lowercased() == "oauth " else { return nil }
        var parameters: [(name: String, value: String)] = []
        var signature: String?
        var seen: Set<String> = []
        for part in header.dropFirst(6).split(separator: ",", omittingEmptySubsequences: true) {
            let trimmed = part.trimmingSpaces()
            guard let equals = trimmed.firstIndex(of: "=") else { return nil }
            let name = String(trimmed[..<equals]).trimmingSpaces()
            var rawValue = String(trimmed[trimmed.index(after: equals)...]).trimmingSpaces()
            if rawValue.count >= 2, rawValue.hasPrefix("\""), rawValue.hasSuffix("\"") {
                rawValue = String(rawValue.dropFirst().dropLast())
            }
            guard !name.isEmpty, seen.insert(name).inserted, let value = OAuth1Encoding.decode(rawValue) else { return nil }
            if name == "oauth_signature" {
                signature = value
            } else if name != "realm" {
                parameters.append((name, value))
            }
        }
        guard let signature, !signature.isEmpty else { return nil }
        return OAuth1Authorization(parameters: parameters, signature: signature)
    }

    public static func == (lhs: OAuth1Authorization, rhs: OAuth1Authorization) -> Bool {
        lhs.signature == rhs.signature && lhs.parameters.elementsEqual(rhs.parameters) { $0.name == $1.name && $0.value == $1.value }
    }
}
