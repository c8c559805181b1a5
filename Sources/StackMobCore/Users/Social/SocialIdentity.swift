/// A provider account, as the provider vouched for it.
public struct SocialIdentity: Sendable {
    public var provider: SocialProvider
    /// The provider's stable id of the account (Facebook `id`, Twitter `id_str`, Gigya UID).
    public var accountID: String
    /// The provider's own JSON about the account (`getFacebookUserInfo`, `getTwitterUserInfo`).
    public var profile: JSONObject

    public init(provider: SocialProvider, accountID: String, profile: JSONObject = [:]) {
        self.provider = provider
        self.accountID = accountID
        self.profile = profile
    }
}
