import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import StackMobCore
import StackMobTestSupport
import Testing

/// Local stand-ins for Facebook's Graph API and Twitter's REST API. They answer only requests
/// made exactly as the providers document them: the Graph API checks the app token and
/// `appsecret_proof`; Twitter checks every OAuth 1.0a signature, recomputed here independently of
/// the server's signer.
actor SocialProviderStub {
    static let facebookAppID = "fb-app-1"
    static let facebookAppSecret = "fb-app-secret-1"
    static let twitterConsumerKey = "tw-consumer-key-1"
    static let twitterConsumerSecret = "tw-consumer-secret-1"

    struct Recorded: Sendable {
        let method: String
        let path: String
        /// Query and form-body parameters, decoded.
        let parameters: [String: String]
        let authorization: String?
    }

    private(set) var requests: [Recorded] = []
    private(set) var facebookPosts: [String] = []
    private(set) var tweets: [String] = []
    /// Twitter requests whose signature or OAuth parameters were wrong.
    private(set) var badSignatures = 0
    /// Facebook: user token → (account id, app the token was issued to, profile).
    private var facebookTokens: [String: (id: String, app: String, profile: JSONObject)] = [:]
    /// Twitter: user token → (token secret, profile).
    private var twitterTokens: [String: (secret: String, profile: JSONObject)] = [:]
    /// Answers only after this long (a provider that does not answer in time).
    private var delaySeconds = 0

    func addFacebookUser(token: String, id: String, name: String, app: String = facebookAppID) {
        facebookTokens[token] = (id, app, ["id": .string(id), "name": .string(name)])
    }

    func addTwitterUser(token: String, secret: String, id: String, screenName: String) {
        twitterTokens[token] = (secret, ["id_str": .string(id), "id": .integer(Int64(id) ?? 0), "screen_name": .string(screenName)])
    }

    func setDelay(seconds: Int) { delaySeconds = seconds }
    func requests(to path: String) -> [Recorded] { requests.filter { $0.path == path } }

    fileprivate func answer(method: String, path: String, authority: String, query: [String: String], body: String, authorization: String?)
        async -> (Int, JSONValue)
    {
        let form = Self.formPairs(body)
        var parameters = query
        for (name, value) in form { parameters[name] = value }
        requests.append(Recorded(method: method, path: path, parameters: parameters, authorization: authorization))
        if delaySeconds > 0 { try? await Task.sleep(for: .seconds(delaySeconds)) }
        switch (method, path) {
        case ("GET", "/debug_token"):
            guard parameters["access_token"] == "\(Self.facebookAppID)|\(Self.facebookAppSecret)" else { return Self.graphError }
            guard let token = parameters["input_token"], let user = facebookTokens[token] else {
                return (200, ["data": ["is_valid": false, "error": ["code": 190, "message": "Invalid OAuth access token."]]])
            }
            return (200, ["data": ["app_id": .string(user.app), "type": "USER", "is_valid": true, "user_id": .string(user.id)]])
        case ("GET", "/me"):
            guard let user = facebookUser(parameters) else { return Self.graphError }
            return (200, .object(user.profile))
        case ("POST", "/me/feed"):
            guard let user = facebookUser(parameters), let message = parameters["message"] else { return Self.graphError }
            facebookPosts.append(message)
            return (200, ["id": .string("\(user.id)_\(facebookPosts.count)")])
        case ("GET", "/1.1/account/verify_credentials.json"):
            guard let user = twitterUser(method: method, authority: authority, path: path, parameters: form, authorization: authorization) else {
                return Self.twitterError
            }
            return (200, .object(user.profile))
        case ("POST", "/1.1/statuses/update.json"):
            guard twitterUser(method: method, authority: authority, path: path, parameters: form, authorization: authorization) != nil,
                let status = form.first(where: { $0.0 == "status" })?.1
            else { return Self.twitterError }
            tweets.append(status)
            return (200, ["id_str": .string("\(tweets.count)"), "text": .string(status)])
        default:
            return (404, ["error": "no such stub route"])
        }
    }

    private static let graphError: (Int, JSONValue) = (400, ["error": ["message": "Invalid OAuth access token.", "type": "OAuthException", "code": 190]])
    private static let twitterError: (Int, JSONValue) = (401, ["errors": [["code": 89, "message": "Invalid or expired token."]]])

    /// A Graph call made with a user token must prove the app secret (`appsecret_proof`).
    private func facebookUser(_ parameters: [String: String]) -> (id: String, app: String, profile: JSONObject)? {
        guard let token = parameters["access_token"], let user = facebookTokens[token] else { return nil }
        let proof = HMAC<SHA256>.authenticationCode(for: Data(token.utf8), using: SymmetricKey(data: Data(Self.facebookAppSecret.utf8)))
        guard parameters["appsecret_proof"] == proof.map({ String(format: "%02x", $0) }).joined() else { return nil }
        return user
    }

    /// RFC 5849 §3.4, written out here: the signature base string from the method, the URL the
    /// request reached and every parameter, the key `consumerSecret&tokenSecret`.
    private func twitterUser(method: String, authority: String, path: String, parameters: [(String, String)], authorization: String?)
        -> (secret: String, profile: JSONObject)?
    {
        guard let authorization, authorization.hasPrefix("OAuth ") else {
            badSignatures += 1
            return nil
        }
        var oauth: [String: String] = [:]
        for field in authorization.dropFirst(6).components(separatedBy: ", ") {
            let parts = field.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[1].hasPrefix("\""), parts[1].hasSuffix("\"") else { continue }
            oauth[String(parts[0])] = String(parts[1].dropFirst().dropLast()).removingPercentEncoding
        }
        guard oauth["oauth_consumer_key"] == Self.twitterConsumerKey, oauth["oauth_signature_method"] == "HMAC-SHA1",
            oauth["oauth_version"] == "1.0", !(oauth["oauth_nonce"] ?? "").isEmpty,
            let timestamp = oauth["oauth_timestamp"].flatMap(Int64.init), abs(timestamp - Int64(Date().timeIntervalSince1970)) < 300,
            let token = oauth["oauth_token"], let user = twitterTokens[token], let signature = oauth["oauth_signature"]
        else {
            badSignatures += 1
            return nil
        }
        var signed: [(String, String)] = parameters
        for (name, value) in oauth where name != "oauth_signature" { signed.append((name, value)) }
        let encoded: [(String, String)] = signed.map { pair in (OAuth1Signer.rfc3986(pair.0), OAuth1Signer.rfc3986(pair.1)) }
        let sorted = encoded.sorted { (a: (String, String), b: (String, String)) -> Bool in a.0 == b.0 ? a.1 < b.1 : a.0 < b.0 }
        let normalized = sorted.map { pair in "\(pair.0)=\(pair.1)" }.joined(separator: "&")
        let base = "\(method)&\(OAuth1Signer.rfc3986("http://\(authority)\(path)"))&\(OAuth1Signer.rfc3986(normalized))"
        let key = "\(OAuth1Signer.rfc3986(Self.twitterConsumerSecret))&\(OAuth1Signer.rfc3986(user.secret))"
        let expected = Data(HMAC<Insecure.SHA1>.authenticationCode(for: Data(base.utf8), using: SymmetricKey(data: Data(key.utf8)))).base64EncodedString()
        guard expected == signature else {
            badSignatures += 1
            return nil
        }
        return user
    }

    private static func formPairs(_ body: String) -> [(String, String)] {
        body.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String { text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text) }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    // MARK: - Running

    nonisolated func app() -> some ApplicationProtocol {
        let router = Router()
        router.add(middleware: StubResponder(stub: self))
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    /// Configures the development environment for both stand-ins at `baseURL`, and Gigya.
    static func configure(_ configuration: inout StackMobConfiguration, baseURL: String) {
        configuration.development.social.facebook = FacebookSettings(appID: facebookAppID, appSecret: facebookAppSecret, graphURL: baseURL)
        configuration.development.social.twitter = TwitterSettings(
            consumerKey: twitterConsumerKey, consumerSecret: twitterConsumerSecret, apiURL: baseURL)
        configuration.development.social.gigya = GigyaSettings(secret: GigyaFixture.secret)
        // Generous: the stand-ins answer at once, but a loaded CI machine can take a second.
        // The silent-provider test sets 1 s itself.
        configuration.development.social.timeoutSeconds = 15
    }

    /// Runs the stand-ins and a server calling them; `body` gets a client and the clock.
    static func run(
        _ stub: SocialProviderStub, clock: ManualClock = ManualClock(Int64(Date().timeIntervalSince1970 * 1000)),
        logger: Logger = TestServer.quietLogger,
        configure extra: @escaping @Sendable (inout StackMobConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (StackMobClient, ManualClock) async throws -> Void
    ) async throws {
        try await stub.app().test(.live) { hook in
            let baseURL = "http://127.0.0.1:\(try #require(hook.port))"
            try await TestServer.run(configure: { configuration in
                Self.configure(&configuration, baseURL: baseURL)
                extra(&configuration)
            }, clock: clock, logger: logger) { client in
                try await body(client, clock)
            }
        }
    }
}

/// Every request goes to the stub actor, which decides.
private struct StubResponder: RouterMiddleware {
    typealias Context = BasicRequestContext
    let stub: SocialProviderStub

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
        let (status, json) = await stub.answer(
            method: request.method.rawValue, path: request.uri.path, authority: request.head.authority ?? "", query: query,
            body: String(buffer: body), authorization: request.headers[.authorization])
        return Response(
            status: .init(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: JSONWriter.bytes(json))))
    }
}

/// Gigya's signature as Gigya's documentation computes it, with a site secret of our own.
enum GigyaFixture {
    static let secret = Data("gigya-site-secret-for-tests".utf8).base64EncodedString()

    static func signature(uid: String, timestamp: String, secret: String = secret) -> String {
        let mac = HMAC<Insecure.SHA1>.authenticationCode(
            for: Data("\(timestamp)_\(uid)".utf8), using: SymmetricKey(data: Data(base64Encoded: secret)!))
        return Data(mac).base64EncodedString()
    }
}
