/// The reserved actions under a user schema (`/<userSchema>/<action>`, PROTOCOL §8). Under any
/// other schema these names are ordinary object ids.
public enum UserAction: String, Sendable, CaseIterable {
    case accessToken, refreshToken, logout, loggedInUser, forgotPassword, resetPassword
    /// The legacy OAuth 1.0 cookie login, `GET /<userSchema>/login` (§8.9).
    case login

    /// The action a raw request path names, nil when the first segment is not a user schema.
    public static func of(path: Substring, in users: UserAccounts) -> UserAction? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count == 2, users.userSchema(named: String(segments[0])) != nil else { return nil }
        return UserAction(rawValue: String(segments[1]))
    }
}
