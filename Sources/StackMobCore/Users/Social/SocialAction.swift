/// The social endpoints under a user schema (`/<userSchema>/<action>`, PROTOCOL §9, and the
/// legacy cookie logins of §8.9). Under any other schema these names are ordinary object ids.
public enum SocialAction: String, Sendable, CaseIterable {
    case facebookAccessToken, facebookAccessTokenWithCreate, createUserWithFacebook, linkUserWithFacebook, unlinkUserFromFacebook
    case getFacebookUserInfo, postFacebookMessage
    case twitterAccessToken, twitterLogin, twitterAccessTokenWithCreate, createUserWithTwitter, linkUserWithTwitter, unlinkUserFromTwitter
    case getTwitterUserInfo, twitterStatusUpdate
    case gigyaAccessToken, linkUserWithGigya, unlinkUserFromGigya
    /// Legacy OAuth 1.0 cookie logins (§8.9).
    case facebookLogin, twitterlogin

    public enum Kind: Sendable {
        /// Answers the §8.2 token response; `create` makes the user when none is linked.
        case tokenLogin(create: Bool)
        case cookieLogin
        case create, link, unlink, userInfo, post
    }

    public var provider: SocialProvider {
        switch self {
        case .facebookAccessToken, .facebookAccessTokenWithCreate, .createUserWithFacebook, .linkUserWithFacebook, .unlinkUserFromFacebook,
            .getFacebookUserInfo, .postFacebookMessage, .facebookLogin:
            .facebook
        case .twitterAccessToken, .twitterLogin, .twitterAccessTokenWithCreate, .createUserWithTwitter, .linkUserWithTwitter,
            .unlinkUserFromTwitter, .getTwitterUserInfo, .twitterStatusUpdate, .twitterlogin:
            .twitter
        case .gigyaAccessToken, .linkUserWithGigya, .unlinkUserFromGigya: .gigya
        }
    }

    public var kind: Kind {
        switch self {
        case .facebookAccessToken, .twitterAccessToken, .twitterLogin: .tokenLogin(create: false)
        // Gigya's token login creates the user when needed (§9).
        case .facebookAccessTokenWithCreate, .twitterAccessTokenWithCreate, .gigyaAccessToken: .tokenLogin(create: true)
        case .facebookLogin, .twitterlogin: .cookieLogin
        case .createUserWithFacebook, .createUserWithTwitter: .create
        case .linkUserWithFacebook, .linkUserWithTwitter, .linkUserWithGigya: .link
        case .unlinkUserFromFacebook, .unlinkUserFromTwitter, .unlinkUserFromGigya: .unlink
        case .getFacebookUserInfo, .getTwitterUserInfo: .userInfo
        case .postFacebookMessage, .twitterStatusUpdate: .post
        }
    }

    /// The parameter holding the message of a post.
    public var messageParameter: String { provider == .twitter ? "tw_st" : "message" }

    /// The action a raw request path names, nil when the first segment is not a user schema.
    public static func of(path: Substring, in users: UserAccounts) -> SocialAction? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count == 2, users.userSchema(named: String(segments[0])) != nil else { return nil }
        return SocialAction(rawValue: String(segments[1]))
    }
}
