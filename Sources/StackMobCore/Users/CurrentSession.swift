/// The session a request was made in, by the hashes the token store keeps: its MAC access token,
/// or its legacy cookie (§8.9). Empty for a request made in no session.
public struct CurrentSession: Sendable, Equatable {
    public var accessHash: String?
    public var cookieHash: String?

    public init(accessToken: String? = nil, cookie: String? = nil) {
        accessHash = accessToken.map(SessionSecrets.hash)
        cookieHash = cookie.map(SessionSecrets.hash)
    }

    public static let none = CurrentSession()
}
