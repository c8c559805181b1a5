/// What authentication needs to know of a request, free of HTTP types (PROTOCOL §1.2, §3).
///
/// Signatures cover more than the credential headers: OAuth 2.0 MAC signs the method, the
/// request-uri, host and port (§3.2); OAuth 1.0 signs the method, the base URL and the query
/// parameters (§3.3). The HTTP layer copies those facts here, as received, so that verification
/// can try every form an SDK may have signed.
public struct RequestCredentials: Sendable {
    /// `X-StackMob-API-Key`.
    public var apiKey: String?
    /// `Authorization`, as received (`MAC id=…` or `OAuth …`).
    public var authorization: String?
    /// The effective verb, after `X-HTTP-Method-Override` (§2.9), upper-case.
    public var method: String
    /// The verb on the wire when `X-HTTP-Method-Override` replaced it, upper-case; nil otherwise.
    public var wireMethod: String?
    /// The request-target exactly as received: the raw path, plus `?` and the raw query if any.
    public var target: String
    /// The `Host` header as received, possibly with `:port`.
    public var host: String?
    /// `X-Forwarded-Proto` and `X-Forwarded-Port`, set by a TLS-terminating proxy.
    public var forwardedProto: String?
    public var forwardedPort: String?
    /// `Cookie`, for the legacy OAuth 1.0 cookie session (§8.9).
    public var cookie: String?
    /// The SHA-1 of the body as received, when an OAuth 1.0 header names `oauth_body_hash` (the
    /// HTTP layer reads the body before authentication only then); nil otherwise.
    public var bodySHA1: [UInt8]?

    public init(
        apiKey: String? = nil, authorization: String? = nil, method: String = "GET", target: String = "/",
        host: String? = nil, forwardedProto: String? = nil, forwardedPort: String? = nil, cookie: String? = nil, wireMethod: String? = nil, bodySHA1: [UInt8]? = nil
    ) {
        self.apiKey = apiKey
        self.authorization = authorization
        self.method = method
        self.wireMethod = wireMethod
        self.target = target
        self.host = host
        self.forwardedProto = forwardedProto
        self.forwardedPort = forwardedPort
        self.cookie = cookie
        self.bodySHA1 = bodySHA1
    }

    /// The verbs a signature may cover (§2.9, §3.2 step 4, D19): a client that sends an override
    /// may have signed the verb it put on the wire or the one it meant.
    public var signableMethods: [String] {
        guard let wireMethod, wireMethod != method else { return [method] }
        return [method, wireMethod]
    }

    /// The raw path, without the query.
    public var path: Substring {
        target.firstIndex(of: "?").map { target[..<$0] } ?? target[...]
    }

    /// The raw query (without `?`), nil when the target has none.
    public var rawQuery: Substring? {
        target.firstIndex(of: "?").map { target[target.index(after: $0)...] }
    }
}
