import Crypto
import Foundation

/// AWS Signature Version 4 (the `Authorization` header of S3-compatible stores). Pure: the date
/// is an argument, so AWS's published examples are reproduced exactly in the tests.
public struct SigV4Signer: Sendable {
    public let accessKeyID: String
    /// Secret: used only to derive the signing key, never logged.
    let secretAccessKey: String
    public let region: String
    public let service: String

    public init(accessKeyID: String, secretAccessKey: String, region: String, service: String = "s3") {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.region = region
        self.service = service
    }

    /// `x-amz-date` form: `20130524T000000Z`.
    public static func amzDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }

    public static func hexSHA256(_ bytes: some DataProtocol) -> String {
        HexDigit.lowercase(SHA256.hash(data: bytes))
    }

    /// The `Authorization` header value. `path` is the URI-encoded path as sent; `headers` must
    /// include `host`, `x-amz-date` and `x-amz-content-sha256` (names are lower-cased here).
    public func authorization(
        method: String, path: String, query: [(String, String)] = [], headers: [String: String], payloadHash: String, amzDate: String
    ) -> String {
        let lowered = Dictionary(headers.map { ($0.key.lowercased(), $0.value.trimmingSpaces()) }, uniquingKeysWith: { _, last in last })
        let names = lowered.keys.sorted()
        let signedHeaders = names.joined(separator: ";")
        let canonicalHeaders = names.map { "\($0):\(lowered[$0]!)\n" }.joined()
        let canonicalQuery = query.map { (Self.encode($0.0), Self.encode($0.1)) }.sorted { $0 < $1 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let canonicalRequest = [method, path, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].joined(separator: "\n")
        let day = String(amzDate.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, Self.hexSHA256(Array(canonicalRequest.utf8))].joined(separator: "\n")
        var key = SymmetricKey(data: Array("AWS4\(secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        let signature = HexDigit.lowercase(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
        return "AWS4-HMAC-SHA256 Credential=\(accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
    }

    /// RFC 3986 unreserved characters stay; everything else is percent-encoded (AWS's rule).
    public static func encode(_ text: String) -> String {
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
