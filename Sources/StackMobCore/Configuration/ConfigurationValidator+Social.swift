import Foundation

/// Checks of the social keys: base URLs a client can call, a Gigya secret Gigya could have issued.
extension ConfigurationValidator {
    static func validateSocial(_ configuration: StackMobConfiguration) throws {
        for kind in EnvironmentKind.allCases {
            let prefix = "environments.\(kind.rawValue).social"
            let social = configuration.settings(for: kind).social
            if let facebook = social.facebook, !isHTTPURL(facebook.graphURL) {
                throw ConfigurationError(key: "\(prefix).facebook.graph_url", "must be an absolute http:// or https:// URL")
            }
            if let twitter = social.twitter, !isHTTPURL(twitter.apiURL) {
                throw ConfigurationError(key: "\(prefix).twitter.api_url", "must be an absolute http:// or https:// URL")
            }
            if let gigya = social.gigya, Data(base64Encoded: gigya.secret)?.isEmpty ?? true {
                throw ConfigurationError(key: "\(prefix).gigya.secret", "must be the site's secret key as Gigya gives it (base64)")
            }
        }
    }
}
