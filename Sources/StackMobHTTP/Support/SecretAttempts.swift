import Hummingbird
import StackMobCore

/// Runs an attempt at a secret under the server's `FailureLimiter`: refused (429) while the
/// client's address or the account has used up its allowance, and counted as a failure when the
/// secret was wrong. The address is the client's as `ClientOrigin` finds it: behind a TLS proxy
/// the socket's peer is the proxy, shared by every client.
struct SecretAttempts: Sendable {
    let limiter: FailureLimiter
    let clock: any ServerClock
    let proxies: TrustedProxies

    /// - Parameters:
    ///   - account: the login the attempt is for, when the request names one.
    ///   - countsEveryAttempt: for requests that cost something even when they succeed
    ///     (a forgot-password mail).
    func attempt<Value>(
        _ request: Request, _ context: StackMobRequestContext, account: String? = nil, countsEveryAttempt: Bool = false,
        _ body: () async throws -> Value
    ) async throws -> Value {
        let keys = Self.keys(ClientOrigin(request, context: context, proxies: proxies).address, context, account: account)
        try await limiter.check(keys, now: clock.nowMilliseconds())
        do {
            let value = try await body()
            if countsEveryAttempt { await limiter.recordFailure(keys, now: clock.nowMilliseconds()) }
            return value
        } catch {
            if countsEveryAttempt || Self.isWrongSecret(error) { await limiter.recordFailure(keys, now: clock.nowMilliseconds()) }
            throw error
        }
    }

    private static func keys(_ address: String?, _ context: StackMobRequestContext, account: String?) -> [FailureLimiter.Key] {
        var keys: [FailureLimiter.Key] = []
        if let address { keys.append(.address(address)) }
        if let account, let environment = context.environment { keys.append(.account("\(environment.kind.rawValue)/\(account)")) }
        return keys
    }

    /// The refusals that say a guessed secret was wrong; anything else (a malformed body, a
    /// stale timestamp, an expired token) is no guess.
    private static func isWrongSecret(_ error: any Error) -> Bool {
        switch error {
        case let error as UserAccountError:
            switch error {
            case .accessDenied, .invalidGrant, .wrongOldPassword, .invalidCookieLogin: return true
            case .temporaryPasswordResetRequired, .notLoggedIn, .unknownUser, .noEmailAddress, .invalidNewPassword, .malformedResetBody,
                .mailDeliveryFailed:
                return false
            }
        case let error as AuthenticationError:
            return error == .badOAuthSignature || error == .unknownConsumerKey
        default:
            return false
        }
    }
}
