/// Signs outgoing requests with OAuth 1.0a (RFC 5849), three-legged: the app's consumer key and
/// secret plus a user's token and secret (Twitter's REST API). The base string and signature are
/// the ones the server checks incoming requests with (`OAuth1Signature`).
public struct OAuth1ClientSigner: Sendable {
    public var consumerKey: String
    public var consumerSecret: String
    public var token: String
    public var tokenSecret: String

    public init(consumerKey: String, consumerSecret: String, token: String, tokenSecret: String) {
        self.consumerKey = consumerKey
        self.consumerSecret = consumerSecret
        self.token = token
        self.tokenSecret = tokenSecret
    }

    /// The `Authorization` header for a request to `baseURL` (scheme, host, port and path, no
    /// query) whose query and form-body parameters, not encoded, are `parameters`.
    public func authorization(method: String, baseURL: String, parameters: [(String, String)], nonce: String, timestamp: Int64) -> String {
        var oauth: [(String, String)] = [
            ("oauth_consumer_key", consumerKey), ("oauth_nonce", nonce), ("oauth_signature_method", "HMAC-SHA1"),
            ("oauth_timestamp", String(timestamp)), ("oauth_token", token), ("oauth_version", "1.0"),
        ]
        let encoded = (oauth + parameters).map { (name: OAuth1Encoding.encode($0.0), value: OAuth1Encoding.encode($0.1)) }
        let base = OAuth1Signature.baseString(
            method: method, baseURL: baseURL, normalizedParameters: OAuth1Signature.normalizedParameters(encoded))
        oauth.append(("oauth_signature", OAuth1Signature.sign(baseString: base, consumerSecret: consumerSecret, tokenSecret: tokenSecret)))
        return "OAuth " + oauth.sorted { $0.0 < $1.0 }.map { "\($0.0)=\"\(OAuth1Encoding.encode($0.1))\"" }.joined(separator: ", ")
    }
}
