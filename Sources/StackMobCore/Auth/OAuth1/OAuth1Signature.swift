import Crypto
import Foundation

/// The RFC 5849 HMAC-SHA1 signature (§3.4.1, §3.4.2) as the StackMob SDKs compute it
/// (PROTOCOL §3.3): two-legged, so the token secret is empty.
public enum OAuth1Signature {
    /// The normalized parameter string: each pair given already encoded, sorted by name then
    /// value, joined as `name=value&…`.
    public static func normalizedParameters(_ encodedPairs: [(name: String, value: String)]) -> String {
        encodedPairs.sorted { $0.name == $1.name ? $0.value < $1.value : $0.name < $1.name }
            .map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    }

    /// `METHOD&enc(baseURL)&enc(normalized parameters)`.
    public static func baseString(method: String, baseURL: String, normalizedParameters: String) -> String {
        "\(method.uppercased())&\(OAuth1Encoding.encode(baseURL))&\(OAuth1Encoding.encode(normalizedParameters))"
    }

    /// Base64 of HMAC-SHA1 keyed with `enc(consumerSecret)&enc(tokenSecret)`.
    public static func sign(baseString: String, consumerSecret: String, tokenSecret: String = "") -> String {
        let key = SymmetricKey(data: Data("\(OAuth1Encoding.encode(consumerSecret))&\(OAuth1Encoding.encode(tokenSecret))".utf8))
        let mac = HMAC<Insecure.SHA1>.authenticationCode(for: Data(baseString.utf8), using: key)
        return Data(mac).base64EncodedString()
    }

    /// The `(name, value)` pairs of a raw query string, as they appear (still encoded).
    public static func rawQueryPairs(_ query: some StringProtocol) -> [(name: String, value: String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let equals = pair.firstIndex(of: "=") {
                return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
            }
            return (String(pair), "")
        }
    }
}
