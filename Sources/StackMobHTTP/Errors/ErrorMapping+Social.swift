import HTTPTypes
import StackMobCore

/// Social login failures (PROTOCOL §9, §14): unlinking nothing is 404, a provider that is not
/// configured 501, one that fails 502 or 504, the client's own failures 400 (401 when not logged in).
extension ErrorMapping {
    static func map(_ error: SocialError) -> Mapped {
        switch error {
        case .notConfigured:
            return Mapped(status: .notImplemented, message: error.message, isClientError: true)
        case .missingParameter, .rejected, .issuedToAnotherApp, .staleTimestamp, .noLinkedUser, .linkedToAnotherUser, .noLinkedAccount:
            return Mapped(status: .badRequest, message: error.message, isClientError: true)
        case .notLinked:
            return Mapped(status: .notFound, message: error.message, isClientError: true)
        case .notLoggedIn:
            return Mapped(status: .unauthorized, message: error.message, isClientError: true)
        case .unreachable, .providerFailed:
            return Mapped(status: .badGateway, message: error.message, isClientError: false)
        case .timedOut:
            return Mapped(status: .gatewayTimeout, message: error.message, isClientError: false)
        }
    }
}
