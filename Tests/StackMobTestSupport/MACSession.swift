import StackMobCore

/// A logged-in session as the SDKs keep it: the three strings of the token response.
public struct MACSession: Sendable {
    public var accessToken: String
    public var macKey: String
    public var refreshToken: String

    public init(accessToken: String, macKey: String, refreshToken: String) {
        self.accessToken = accessToken
        self.macKey = macKey
        self.refreshToken = refreshToken
    }

    /// From a token response body; nil unless all three are strings.
    public init?(_ response: APIResponse) {
        guard let body = response.object, let access = body["access_token"]?.stringValue, let key = body["mac_key"]?.stringValue,
            let refresh = body["refresh_token"]?.stringValue
        else { return nil }
        self.init(accessToken: access, macKey: key, refreshToken: refresh)
    }
}
