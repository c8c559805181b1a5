/// A provider account linked to a user (table `_sm_social_links`, migration v006). The token
/// and secret are kept so that user info and posts work later without the client's help.
public struct SocialLink: Sendable, Equatable {
    public var provider: SocialProvider
    public var userSchema: String
    public var accountID: String
    public var userID: String
    /// Facebook access token or Twitter token. Secret: never logged or returned.
    public var token: String?
    /// Twitter token secret. Secret.
    public var tokenSecret: String?

    public init(provider: SocialProvider, userSchema: String, accountID: String, userID: String, token: String?, tokenSecret: String?) {
        self.provider = provider
        self.userSchema = userSchema
        self.accountID = accountID
        self.userID = userID
        self.token = token
        self.tokenSecret = tokenSecret
    }
}
