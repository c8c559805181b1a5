import StackMobCore

/// MAC and OAuth 1.0 nonces in the database, so that a request replayed through another
/// instance is refused too. Expired entries are deleted by the writes that find them in the way,
/// and by the sweep.
public struct PostgresNonceStore: NonceStore {
    let database: PostgresPool

    public func record(_ request: SeenRequest) async throws -> Bool {
        // Inserted, or replacing an expired entry: fresh. A live entry stays and the request is a
        // replay. One statement, atomic across instances.
        let rows = try await database.execute(
            PostgresStatement(
                """
                INSERT INTO _sm_nonces (key, expires_at) VALUES ($1, $2)
                ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE _sm_nonces.expires_at <= $3
                RETURNING 1
                """, [.text(request.key), .integer(request.expiresAt), .integer(request.now)]))
        return !rows.isEmpty
    }

    /// Deletes the entries whose window has passed; returns how many went.
    public func sweep(now: Int64) async throws -> Int {
        try await database.execute(PostgresStatement("DELETE FROM _sm_nonces WHERE expires_at <= $1 RETURNING 1", [.integer(now)])).count
    }
}
