/// Failures of the user actions (PROTOCOL §8, §14). `error` and `errorDescription` are the JSON
/// body's two keys; the SDKs match some of them exactly.
public enum UserAccountError: Error, Sendable, Equatable {
    case accessDenied
    /// D8: the exact text, with the period, in both keys.
    case temporaryPasswordResetRequired
    case invalidGrant
    case notLoggedIn
    case wrongOldPassword
    case unknownUser
    case noEmailAddress
    case invalidNewPassword
    case malformedResetBody
    case mailDeliveryFailed
    /// Legacy cookie login failure (§8.9): the Java SDK looks for `Invalid` in the body.
    case invalidCookieLogin

    public var error: String {
        switch self {
        case .accessDenied: "access_denied"
        case .temporaryPasswordResetRequired: "Temporary password reset required."
        case .invalidGrant: "invalid_grant"
        case .notLoggedIn: "Not logged in: sign the request with a valid access token"
        case .wrongOldPassword: "The old password is incorrect"
        case .unknownUser: "No user with that login"
        case .noEmailAddress: "The user has no e-mail address to send a temporary password to"
        case .invalidNewPassword: "The new password must be a non-empty string"
        case .malformedResetBody: "Send {\"old\": {\"password\": \"…\"}, \"new\": {\"password\": \"…\"}}"
        case .mailDeliveryFailed: "The e-mail with the temporary password could not be sent"
        case .invalidCookieLogin: "Invalid username or password"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .accessDenied: "Invalid username or password"
        case .temporaryPasswordResetRequired: "Temporary password reset required."
        case .invalidGrant: "The refresh token is invalid, revoked or already used"
        case .notLoggedIn, .wrongOldPassword, .unknownUser, .noEmailAddress, .invalidNewPassword, .malformedResetBody,
            .mailDeliveryFailed, .invalidCookieLogin:
            nil
        }
    }
}
