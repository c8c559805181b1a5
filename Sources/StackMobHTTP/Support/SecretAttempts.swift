import Hummingbird
import StackMobCore

/// Runs an attempt at a secret under the server's `FailureLimiter`: refused (429) while the
/// client's address, or the account from that address, is delayed for its failures; counted as a
/// failure when the secret was wrong. The address is the client's as `ClientOrigin` finds it:
/// behind a TLS proxy the socket's peer is the proxy, shared by every client.
struct SecretAttempts: Sendable {
    let limiter: FailureLimiter
    /// Forgot-password requests, counted apart: each sends mail, none is a guess at a secret.
    let forgotPasswords: FailureLimiter
    let clock: any ServerClock
    let proxies: TrustedProxies

    init(backend: Backend, clock: any ServerClock) {
        limiter = backend.failureLimiter
        forgotPasswords = backend.forgotPasswordLimiter
        self.clock = clock
        proxies = backend.configuration.trustedProxies
    }

    /// - Parameter account: the login the attempt is for, when the request names one.
    func attempt<Value>(
        _ request: Request, _ context: StackMobRequestContext, account: String? = nil, _ body: () async throws -> Value
    ) async throws -> Value {
        let keys = keys(request, context, account: account, pair: true)
        let attempt = try await limiter.begin(keys, now: clock.nowMilliseconds())
        do {
            let value = try await body()
            await limiter.end(attempt, .succeeded, now: clock.nowMilliseconds())
            return value
        } catch {
            await limiter.end(attempt, Self.isWrongSecret(error) ? .failed : .other, now: clock.nowMilliseconds())
            throw error
        }
    }

    /// A forgot-password request for `account`: every one counts, per address and per account,
    /// whatever its answer, and nothing against logins.
    func forgotPassword<Value>(
        _ request: Request, _ context: StackMobRequestContext, account: String, _ body: () async throws -> Value
    ) async throws -> Value {
        try await forgotPasswords.count(keys(request, context, account: account, pair: false), now: clock.nowMilliseconds())
        return try await body()
    }

    private func keys(_ request: Request, _ context: StackMobRequestContext, account: String?, pair: Bool) -> [FailureLimiter.Key] {
        let address = ClientOrigin(request, context: context, proxies: proxies).address
        var keys: [FailureLimiter.Key] = []
        if let address { keys.append(.address(address)) }
        if let account, let environment = context.environment {
            let account = "\(environment.kind.rawValue)/\(account)"
            if pair { keys.append(.accountFromAddress(account, address: address ?? "-")) }
            keys.append(.account(account))
        }
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
