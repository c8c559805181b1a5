import PostgresNIO
import StackMobCore

/// A signed request's session and its replay record in one statement (`SignedSessionStore`):
/// the request is recorded only when a session that has not expired holds its token, as
/// `PostgresNonceStore` records it (a live record stays and makes it a replay; an expired one is
/// replaced).
extension PostgresTokenStore: SignedSessionStore {
    public func session(accessHash: String, recording request: SeenRequest) async throws -> (session: StoredSession, fresh: Bool)? {
        let rows = try await run(
            """
            WITH session AS (SELECT \(Self.columns) FROM _sm_tokens WHERE access_hash = $1),
            recorded AS (
                INSERT INTO _sm_nonces (key, expires_at) SELECT $2, $3 FROM session WHERE session.expires_at > $4
                ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE _sm_nonces.expires_at <= $4
                RETURNING 1
            )
            SELECT \(Self.columns), EXISTS (SELECT 1 FROM recorded) FROM session
            """, [.text(accessHash), .text(request.key), .integer(request.expiresAt), .integer(request.now)])
        guard let row = rows.first else { return nil }
        let values = try row.decode((String, String, String, String, ByteBuffer, Int64, Int64, Bool).self)
        let session = Self.session(
            accessHash: values.0, refreshHash: values.1, userSchema: values.2, userID: values.3, sealedMACKey: values.4,
            expiresAt: values.5, createdAt: values.6)
        return (session, values.7)
    }
}
