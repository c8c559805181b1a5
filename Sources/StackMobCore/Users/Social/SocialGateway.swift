/// The calls to Facebook and Twitter, which need the network: implemented in the HTTP module
/// (the project's HTTP client, with timeouts), replaced by local stand-ins in tests.
///
/// Failures are `SocialError`s: `.rejected` when the provider refused the credentials,
/// `.unreachable`, `.timedOut` or `.providerFailed` when it could not answer.
public protocol SocialGateway: Sendable {
    /// Checks with the Graph API that the token is valid, was issued to this app, and whose it is.
    func facebookUser(accessToken: String, settings: FacebookSettings, timeoutSeconds: Int) async throws(SocialError) -> SocialIdentity
    /// Posts to the user's feed; answers Facebook's JSON.
    func facebookPost(message: String, accessToken: String, settings: FacebookSettings, timeoutSeconds: Int) async throws(SocialError) -> JSONValue
    /// `account/verify_credentials`, signed with the app's consumer key and the user's token.
    func twitterUser(token: String, secret: String, settings: TwitterSettings, timeoutSeconds: Int) async throws(SocialError) -> SocialIdentity
    /// `statuses/update`; answers Twitter's JSON.
    func twitterUpdate(status: String, token: String, secret: String, settings: TwitterSettings, timeoutSeconds: Int) async throws(SocialError)
        -> JSONValue
}
