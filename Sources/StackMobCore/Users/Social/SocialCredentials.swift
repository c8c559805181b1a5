/// What a client proves a provider account with (PROTOCOL §9): the parameters of one request.
public enum SocialCredentials: Sendable {
    /// `fb_at`.
    case facebook(accessToken: String)
    /// `tw_tk`, `tw_ts`: the user's OAuth 1.0a token and token secret for the app.
    case twitter(token: String, secret: String)
    /// `gigya_uid`, `gigya_ts`, `gigya_sig`: the UID as Gigya signed it for the site.
    case gigya(uid: String, timestamp: String, signature: String)

    public var provider: SocialProvider {
        switch self {
        case .facebook: .facebook
        case .twitter: .twitter
        case .gigya: .gigya
        }
    }

    /// The credentials in a request's parameters; throws naming the first missing one.
    public static func from(_ parameters: [String: String], provider: SocialProvider) throws(SocialError) -> SocialCredentials {
        func required(_ name: String) throws(SocialError) -> String {
            guard let value = parameters[name], !value.isEmpty else { throw .missingParameter(name) }
            return value
        }
        switch provider {
        case .facebook: return .facebook(accessToken: try required("fb_at"))
        case .twitter: return .twitter(token: try required("tw_tk"), secret: try required("tw_ts"))
        case .gigya: return .gigya(uid: try required("gigya_uid"), timestamp: try required("gigya_ts"), signature: try required("gigya_sig"))
        }
    }
}
