/// A MAC-signed request's session, looked up and the request recorded as seen in one round trip:
/// for an engine whose sessions and replay records share a database across the network
/// (PostgreSQL), where the lookup and then the record cost every signed request two.
///
/// The record is made before the signature is checked. That is safe because its key holds the
/// request's mac (`SeenRequest`): a forged request is filed under its own mac, which no genuine
/// request carries unless the forger copied it from one already sent, so it cannot spend a
/// genuine request's nonce. What it leaves is one row that expires within the timestamp window,
/// as a request signed with the sender's own session would; `verify` keeps a nonce or mac longer
/// than the SDKs' (`longestUnverifiedPart`) for after the signature, so that row stays small.
/// `UserAccounts.verify` reads the answer only once the signature matched, so every refusal keeps
/// its reason and order; when the statement fails, it looks up and records apart.
///
/// An engine without one (SQLite, whose replay cache is in the process's memory and bounded by
/// evictions a flood of forgeries could force) looks up, checks the signature, then records.
public protocol SignedSessionStore: Sendable {
    /// The session holding `accessHash` and whether `request` was fresh (false: recorded before
    /// and not yet expired, a replay); nil, with nothing recorded, when no session holds it.
    /// Nothing is recorded either for a session expired by `request.now`, which `verify` refuses
    /// or serves as anonymous before it reads `fresh`.
    func session(accessHash: String, recording request: SeenRequest) async throws -> (session: StoredSession, fresh: Bool)?
}
