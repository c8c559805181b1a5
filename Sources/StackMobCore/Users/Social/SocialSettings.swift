import Crypto
import Foundation

/// Social login for one environment (`environments.<env>.social`, PROTOCOL §9). A provider that
/// is not configured answers 501 on its endpoints. The app secrets are secrets: never logged.
public struct SocialSettings: Sendable, Equatable {
    /// Time limit of one call to Facebook or Twitter; past it the client gets a 504.
    public var timeoutSeconds = 10
    public var facebook: FacebookSettings?
    public var twitter: TwitterSettings?
    public var gigya: GigyaSettings?

    public init() {}
}

/// `social.facebook`: the Facebook app the access tokens must have been issued to.
public struct FacebookSettings: Sendable, Equatable {
    public var appID: String
    /// Secret.
    public var appSecret: String
    /// The Graph API base URL (a local stand-in or a proxy in tests).
    public var graphURL: String

    public static let defaultGraphURL = "https://graph.facebook.com"

    public init(appID: String, appSecret: String, graphURL: String = Self.defaultGraphURL) {
        self.appID = appID
        self.appSecret = appSecret
        self.graphURL = graphURL
    }
}

/// `social.twitter`: the Twitter app whose consumer key the SDKs' user tokens belong to.
public struct TwitterSettings: Sendable, Equatable {
    public var consumerKey: String
    /// Secret.
    public var consumerSecret: String
    /// The REST API base URL; the server calls `<api_url>/1.1/…`.
    public var apiURL: String

    public static let defaultAPIURL = "https://api.twitter.com"

    public init(consumerKey: String, consumerSecret: String, apiURL: String = Self.defaultAPIURL) {
        self.consumerKey = consumerKey
        self.consumerSecret = consumerSecret
        self.apiURL = apiURL
    }
}

/// `social.gigya`: the site's secret key, with which Gigya signs the UID it hands the client.
public struct GigyaSettings: Sendable, Equatable {
    /// The base64 secret from the Gigya console. Secret.
    public var secret: String
    /// How far `gigya_ts` may be from the server's clock (Gigya recommends a few minutes).
    public var timestampWindowSeconds: Int

    public init(secret: String, timestampWindowSeconds: Int = 180) {
        self.secret = secret
        self.timestampWindowSeconds = timestampWindowSeconds
    }
}

extension FacebookSettings {
    /// `appsecret_proof`: hex HMAC-SHA256 of the user's token keyed with the app secret, which
    /// Graph API calls made with a user token carry when the app requires it.
    public func appSecretProof(for accessToken: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(accessToken.utf8), using: SymmetricKey(data: Data(appSecret.utf8)))
        return HexDigit.lowercase(mac)
    }
}
