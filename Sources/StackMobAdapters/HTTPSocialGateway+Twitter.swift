import AsyncHTTPClient
import Foundation
import NIOCore
import StackMobCore

/// Twitter's REST API v1.1, each call signed with OAuth 1.0a: the app's consumer key and secret,
/// the user's token and token secret (`tw_tk`, `tw_ts`).
extension HTTPSocialGateway {
    func twitterUser(token: String, secret: String, settings: TwitterSettings, timeoutSeconds: Int) async throws(SocialError) -> SocialIdentity {
        let url = settings.apiURL + "/1.1/account/verify_credentials.json"
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: Self.signer(settings, token, secret).authorization(
            method: "GET", baseURL: url, parameters: [], nonce: SessionSecrets.generateToken(), timestamp: Self.now()))
        let profile = try object(try await send(request, .twitter, timeoutSeconds: timeoutSeconds), .twitter)
        guard let id = profile["id_str"]?.stringValue ?? Self.idString(profile["id"]) else { throw .providerFailed(.twitter) }
        return SocialIdentity(provider: .twitter, accountID: id, profile: profile)
    }

    func twitterUpdate(status: String, token: String, secret: String, settings: TwitterSettings, timeoutSeconds: Int) async throws(SocialError)
        -> JSONValue
    {
        let url = settings.apiURL + "/1.1/statuses/update.json"
        let parameters = [("status", status)]
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        // Form-body parameters are part of the signature (RFC 5849 §3.4.1.3).
        request.headers.add(name: "Authorization", value: Self.signer(settings, token, secret).authorization(
            method: "POST", baseURL: url, parameters: parameters, nonce: SessionSecrets.generateToken(), timestamp: Self.now()))
        request.body = .bytes(ByteBuffer(string: Self.encodedPairs(parameters)))
        return .object(try object(try await send(request, .twitter, timeoutSeconds: timeoutSeconds), .twitter))
    }

    private static func signer(_ settings: TwitterSettings, _ token: String, _ secret: String) -> OAuth1ClientSigner {
        OAuth1ClientSigner(consumerKey: settings.consumerKey, consumerSecret: settings.consumerSecret, token: token, tokenSecret: secret)
    }

    /// Twitter checks `oauth_timestamp` against its own clock, so this is wall-clock time.
    private static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }
}
