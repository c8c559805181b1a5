/// Decides who a request acts for from its credentials (PROTOCOL §1.2, §3).
///
/// The HTTP layer extracts the credential headers; the decision lives here, free of HTTP types.
/// OAuth 2.0 MAC (logged-in users) and OAuth 1.0 (private key) verification slot in here.
public struct RequestAuthenticator: Sendable {
    public init() {}

    public func authenticate(_ credentials: RequestCredentials, in environment: AppEnvironment) async throws(AuthenticationError) -> Caller {
        if let authorization = credentials.authorization {
            // A private-key signature replaces the API-key header (§3.3).
            if authorization.hasPrefix("OAuth ") {
                let caller = try await environment.users.verifyOAuth1(authorization, credentials, keys: environment.keys)
                // A legacy cookie login (§8.9) makes the signed request act for that user's ownership.
                if let session = await environment.users.cookieSessionUser(credentials.cookie, environment: environment.kind) {
                    return .privateKeySession(schema: session.schema, id: session.id)
                }
                return caller
            }
        }
        guard let apiKey = credentials.apiKey else { throw .missingCredentials }
        guard constantTimeEquals(apiKey, environment.keys.publicKey) else { throw .unknownAPIKey }
        guard let authorization = credentials.authorization, authorization.hasPrefix("MAC ") else { return .anonymous }
        let action = UserAction.of(path: credentials.path, in: environment.users)
        // The Java SDK signs token requests with whatever token it still holds (§3.2): ignored.
        if action == .accessToken || action == .refreshToken { return .anonymous }
        if case .tokenLogin? = SocialAction.of(path: credentials.path, in: environment.users)?.kind { return .anonymous }
        do throws(AuthenticationError) {
            guard let mac = MACAuthorization.parse(authorization) else { throw .malformedAuthorization }
            return try await environment.users.verify(mac, credentials)
        } catch {
            // Logout answers 200 even for a dead token (D20): a 401 would send iOS into a refresh loop.
            if action == .logout { return .anonymous }
            throw error
        }
    }
}

/// Compares secrets without leaking, through timing, how long a prefix matched.
func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
    let left = Array(lhs.utf8)
    let right = Array(rhs.utf8)
    guard left.count == right.count else { return false }
    var difference: UInt8 = 0
    for (a, b) in zip(left, right) { difference |= a ^ b }
    return difference == 0
}
