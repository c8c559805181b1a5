import Crypto
import Foundation
import HTTPTypes
import StackMobCore

/// Signs like the OAuth 1.0 clients of PROTOCOL §3.3 (two-legged, HMAC-SHA1, consumer key =
/// public key, secret = private key). Written independently of the server's candidate logic:
/// each shape computes the one base string its SDK computes.
public enum OAuth1Signer {
    public enum Shape: Sendable, CaseIterable {
        /// iOS push client: base URL without a default port, query parameters as they appear in
        /// the URL; header `OAuth realm="…",k="v",…` without spaces.
        case iOS
        /// Java SDK: base URL with the port exactly as written, query parameters decoded then
        /// RFC 3986-encoded; header `OAuth k="v", k="v"`.
        case java
    }

    /// The URL the client believes it talks to (the test server answers on `localhost`).
    public struct Endpoint: Sendable {
        public var scheme = "http"
        public var host = "localhost"
        /// Written into the URL when non-nil (Java keeps it as written; iOS drops a default port).
        public var port: Int?
        public init(scheme: String = "http", host: String = "localhost", port: Int? = nil) {
            self.scheme = scheme
            self.host = host
            self.port = port
        }
    }

    /// The `Authorization` header value for `method target` (target = path plus raw query).
    /// With `bodyHash`, the header carries `oauth_body_hash` and signs it as one of the oauth
    /// parameters, as the stackmob-ruby gem's OAuth library does (OAuth Request Body Hash).
    public static func authorization(
        method: String, target: String, consumerKey: String, secret: String, shape: Shape, endpoint: Endpoint = Endpoint(),
        timestamp: Int64, nonce: String = UUID().uuidString, bodyHash: String? = nil
    ) -> String {
        let question = target.firstIndex(of: "?")
        let path = question.map { String(target[..<$0]) } ?? target
        let query = question.map { String(target[target.index(after: $0)...]) } ?? ""
        let oauth: [(String, String)] =
            (bodyHash.map { [("oauth_body_hash", $0)] } ?? []) + [
                ("oauth_consumer_key", consumerKey), ("oauth_nonce", nonce), ("oauth_signature_method", "HMAC-SHA1"),
                ("oauth_timestamp", String(timestamp)), ("oauth_version", "1.0"),
            ]
        let queryPairs: [(String, String)] = query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
        let baseURL: String
        let signedQuery: [(String, String)]
        switch shape {
        case .iOS:
            let defaultPort = endpoint.scheme == "https" ? 443 : 80
            let port = endpoint.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
            baseURL = "\(endpoint.scheme)://\(endpoint.host.lowercased())\(port)\(path)"
            signedQuery = queryPairs
        case .java:
            baseURL = "\(endpoint.scheme)://\(endpoint.host)\(endpoint.port.map { ":\($0)" } ?? "")\(path)"
            signedQuery = queryPairs.map { (rfc3986(formDecode($0.0)), rfc3986(formDecode($0.1))) }
        }
        let pairs = (oauth.map { (rfc3986($0.0), rfc3986($0.1)) } + signedQuery).sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }
        let normalized = pairs.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let base = "\(method.uppercased())&\(rfc3986(baseURL))&\(rfc3986(normalized))"
        let signature = OAuth1Signature.sign(baseString: base, consumerSecret: secret)
        let fields = (oauth + [("oauth_signature", signature)]).map { "\($0.0)=\"\(rfc3986($0.1))\"" }
        switch shape {
        case .iOS: return "OAuth realm=\"http://push.stackmob.com\"," + fields.joined(separator: ",")
        case .java: return "OAuth " + fields.joined(separator: ", ")
        }
    }

    /// `oauth_body_hash` of a body: base64 of its SHA-1.
    public static func bodyHash(_ body: [UInt8]) -> String {
        Data(Insecure.SHA1.hash(data: body)).base64EncodedString()
    }

    /// RFC 3986 unreserved characters stay; everything else is `%XX` (upper-case).
    public static func rfc3986(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static func formDecode(_ text: String) -> String {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? text
    }
}

extension StackMobClient {
    /// A request signed with the environment's private key (no API-key header), as the given
    /// SDK shape signs it. Production when `version` ≥ 1.
    ///
    /// With `signedBody`, the signature covers a body too, as the stackmob-ruby gem signs one
    /// (`oauth_body_hash`): the bytes `signedBody` stands for, which are those of `json` unless
    /// the test sends another body than the one it signed.
    public func oauth1(
        _ method: HTTPRequest.Method, _ target: String, shape: OAuth1Signer.Shape, json: JSONValue? = nil,
        endpoint: OAuth1Signer.Endpoint = OAuth1Signer.Endpoint(), timestamp: Int64 = Int64(Date().timeIntervalSince1970),
        nonce: String = UUID().uuidString, secret: String? = nil, headers: [String: String] = [:], signedBody: SignedBody? = nil
    ) async throws -> APIResponse {
        let production = version >= 1
        let consumerKey = production ? TestServer.productionPublicKey : TestServer.developmentPublicKey
        let privateKey = secret ?? (production ? TestServer.productionPrivateKey : TestServer.developmentPrivateKey)
        var headers = headers
        headers["Authorization"] = OAuth1Signer.authorization(
            method: method.rawValue, target: target, consumerKey: consumerKey, secret: privateKey, shape: shape, endpoint: endpoint,
            timestamp: timestamp, nonce: nonce, bodyHash: signedBody.map { OAuth1Signer.bodyHash($0.bytes(sent: json)) })
        return try await withoutKey.request(method, target, json: json, headers: headers)
    }

    /// The body an OAuth 1.0 request signs with `oauth_body_hash`.
    public enum SignedBody: Sendable {
        /// The body sent (nothing when there is none).
        case sent
        /// Another body: the one the client signed before the sent one replaced it.
        case other(JSONValue)

        func bytes(sent json: JSONValue?) -> [UInt8] {
            switch self {
            case .sent: json.map { JSONWriter.bytes($0, omittingNulls: false) } ?? []
            case .other(let signed): JSONWriter.bytes(signed, omittingNulls: false)
            }
        }
    }
}
