import GRDB

/// Every registered token, for `stackmob-server export` (issue 17).
extension TokenRegistry {
    public func allTokens() async throws -> [RegisteredToken] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT type, token, user_id, registered_at FROM _sm_push_tokens ORDER BY type, token")
                .compactMap(Self.registeredToken)
        }
    }
}
