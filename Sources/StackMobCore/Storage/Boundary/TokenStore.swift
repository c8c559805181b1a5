/// The internal rows of users: sessions, temporary passwords, the mail outbox. Kept apart from
/// `StorageEngine`, which is about app objects.
public protocol TokenStore: Sendable {
    /// Stores a new session; with `replacingOthers` the user's other sessions go in the same
    /// transaction (single session, D24).
    func insertSession(_ session: StoredSession, replacingOthers: Bool) async throws
    func session(accessHash: String) async throws -> StoredSession?
    func session(refreshHash: String) async throws -> StoredSession?
    /// Atomically replaces the session holding `refreshHash` by `next`; false when no session
    /// holds it (already used or revoked), so two concurrent refreshes cannot both succeed.
    func rotateSession(refreshHash: String, to next: StoredSession) async throws -> Bool
    func deleteSession(accessHash: String) async throws
    /// The retention sweep: deletes the sessions whose access token expired at or before `now`
    /// and whose refresh token was issued at or before `refreshIssuedBefore` (neither works any
    /// more), expired cookie sessions and expired temporary passwords. Revoked sessions are gone
    /// already: logout and revocation delete their rows. Returns how many rows went.
    func sweepExpired(now: Int64, refreshIssuedBefore: Int64) async throws -> Int
    func deleteSessions(userSchema: String, userID: String) async throws
    /// Ends every session of the user, MAC and cookie sessions alike, in one transaction, but the
    /// one making the request (a password change keeps its own caller logged in).
    func revokeSessions(userSchema: String, userID: String, keeping current: CurrentSession) async throws

    func setTemporaryPassword(userSchema: String, userID: String, hash: String, expiresAt: Int64) async throws
    func temporaryPassword(userSchema: String, userID: String) async throws -> (hash: String, expiresAt: Int64)?
    func deleteTemporaryPassword(userSchema: String, userID: String) async throws

    /// Records the e-mail field a client marked (`forgotpassword`); the first marking stays.
    func markEmailField(userSchema: String, field: String) async throws
    func markedEmailField(userSchema: String) async throws -> String?

    /// Legacy OAuth 1.0 cookie sessions (§8.9), by the SHA-256 hash of the cookie value.
    func insertCookieSession(hash: String, userSchema: String, userID: String, expiresAt: Int64) async throws
    func cookieSession(hash: String) async throws -> (userSchema: String, userID: String, expiresAt: Int64)?
    func deleteCookieSession(hash: String) async throws

    /// Social accounts linked to users (§9). `link` replaces the user's previous account of the
    /// provider and throws `SocialError.linkedToAnotherUser` when the account belongs to another
    /// user, in one transaction.
    func socialLink(_ provider: SocialProvider, userSchema: String, accountID: String) async throws -> SocialLink?
    func socialLink(_ provider: SocialProvider, userSchema: String, userID: String) async throws -> SocialLink?
    func link(_ link: SocialLink, at time: Int64) async throws
    /// False when the user had no account of the provider.
    func unlink(_ provider: SocialProvider, userSchema: String, userID: String) async throws -> Bool

    /// Returns the new entry's id.
    func appendToOutbox(_ message: MailMessage, at time: Int64) async throws -> Int64
    func outbox() async throws -> [OutboxEntry]
}
