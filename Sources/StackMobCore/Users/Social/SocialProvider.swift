/// The identity providers a user can log in with (PROTOCOL §9).
public enum SocialProvider: String, Sendable, CaseIterable {
    case facebook, twitter, gigya

    /// The name clients and operators read in messages.
    public var displayName: String {
        switch self {
        case .facebook: "Facebook"
        case .twitter: "Twitter"
        case .gigya: "Gigya"
        }
    }
}
