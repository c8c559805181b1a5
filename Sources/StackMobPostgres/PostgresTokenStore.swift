import PostgresNIO
import StackMobCore

/// `TokenStore` on the environment's PostgreSQL schema: the same tables as on SQLite.
public struct PostgresTokenStore: TokenStore {
    let database: PostgresPool

    @discardableResult
    func run(_ sql: String, _ values: [StoredValue]) async throws -> [PostgresRow] {
        try await database.run(sql, values)
    }

    func write<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await database.writeTransaction(body)
    }

    public func insertSession(_ session: StoredSession, replacingOthers: Bool) async throws {
        try await write { connection in
            if replacingOthers {
                try await database.execute(
                    PostgresStatement("DELETE FROM _sm_tokens WHERE user_schema = $1 AND user_id = $2", [.text(session.userSchema), .text(session.userID)]),
                    on: connection)
            }
            try await database.execute(Self.insertStatement(session), on: connection)
        }
    }

    public func session(accessHash: String) async throws -> StoredSession? {
        try await run("SELECT \(Self.columns) FROM _sm_tokens WHERE access_hash = $1", [.text(accessHash)]).first.map(Self.session)
    }

    public func session(refreshHash: String) async throws -> StoredSession? {
        try await run("SELECT \(Self.columns) FROM _sm_tokens WHERE refresh_hash = $1", [.text(refreshHash)]).first.map(Self.session)
    }

    public func rotateSession(refreshHash: String, to next: StoredSession) async throws -> Bool {
        try await write { connection in
            let deleted = try await database.execute(
                PostgresStatement("DELETE FROM _sm_tokens WHERE refresh_hash = $1 RETURNING 1", [.text(refreshHash)]), on: connection)
            guard deleted.count == 1 else { return false }
            try await database.execute(Self.insertStatement(next), on: connection)
            return true
        }
    }

    public func deleteSession(accessHash: String) async throws {
        try await run("DELETE FROM _sm_tokens WHERE access_hash = $1", [.text(accessHash)])
    }

    public func sweepExpired(now: Int64, refreshIssuedBefore: Int64) async throws -> Int {
        try await write { connection in
            var deleted = try await database.execute(
                PostgresStatement(
                    "DELETE FROM _sm_tokens WHERE expires_at <= $1 AND created_at <= $2 RETURNING 1", [.integer(now), .integer(refreshIssuedBefore)]),
                on: connection
            ).count
            for table in ["_sm_cookie_sessions", "_sm_temporary_passwords"] {
                deleted += try await database.execute(
                    PostgresStatement("DELETE FROM \(table) WHERE expires_at <= $1 RETURNING 1", [.integer(now)]), on: connection
                ).count
            }
            return deleted
        }
    }

    public func deleteSessions(userSchema: String, userID: String) async throws {
        try await run("DELETE FROM _sm_tokens WHERE user_schema = $1 AND user_id = $2", [.text(userSchema), .text(userID)])
    }

    public func revokeSessions(userSchema: String, userID: String, keeping current: CurrentSession) async throws {
        try await write { connection in
            // IS DISTINCT FROM NULL is true: with no current session every session goes.
            try await database.execute(
                PostgresStatement(
                    "DELETE FROM _sm_tokens WHERE user_schema = $1 AND user_id = $2 AND access_hash IS DISTINCT FROM $3",
                    [.text(userSchema), .text(userID), .optionalText(current.accessHash)]), on: connection)
            try await database.execute(
                PostgresStatement(
                    "DELETE FROM _sm_cookie_sessions WHERE user_schema = $1 AND user_id = $2 AND session_hash IS DISTINCT FROM $3",
                    [.text(userSchema), .text(userID), .optionalText(current.cookieHash)]), on: connection)
        }
    }

    public func setTemporaryPassword(userSchema: String, userID: String, hash: String, expiresAt: Int64) async throws {
        try await run(
            """
            INSERT INTO _sm_temporary_passwords (user_schema, user_id, password_hash, expires_at) VALUES ($1, $2, $3, $4)
            ON CONFLICT (user_schema, user_id) DO UPDATE SET password_hash = excluded.password_hash, expires_at = excluded.expires_at
            """, [.text(userSchema), .text(userID), .text(hash), .integer(expiresAt)])
    }

    public func temporaryPassword(userSchema: String, userID: String) async throws -> (hash: String, expiresAt: Int64)? {
        try await run(
            "SELECT password_hash, expires_at FROM _sm_temporary_passwords WHERE user_schema = $1 AND user_id = $2",
            [.text(userSchema), .text(userID)]
        ).first.map { row in
            let (hash, expiresAt) = try row.decode((String, Int64).self)
            return (hash: hash, expiresAt: expiresAt)
        }
    }

    public func deleteTemporaryPassword(userSchema: String, userID: String) async throws {
        try await run("DELETE FROM _sm_temporary_passwords WHERE user_schema = $1 AND user_id = $2", [.text(userSchema), .text(userID)])
    }

    public func markEmailField(userSchema: String, field: String) async throws {
        try await run(
            "INSERT INTO _sm_user_email_fields (user_schema, field) VALUES ($1, $2) ON CONFLICT DO NOTHING", [.text(userSchema), .text(field)])
    }

    public func markedEmailField(userSchema: String) async throws -> String? {
        try await run("SELECT field FROM _sm_user_email_fields WHERE user_schema = $1", [.text(userSchema)]).first?.decode(String.self)
    }

    public func insertCookieSession(hash: String, userSchema: String, userID: String, expiresAt: Int64) async throws {
        let createdAt = expiresAt - CookieSession.lifetimeMilliseconds
        try await write { connection in
            // Expired rows go on each login, keeping the table small.
            try await database.execute(PostgresStatement("DELETE FROM _sm_cookie_sessions WHERE expires_at <= $1", [.integer(createdAt)]), on: connection)
            try await database.execute(
                PostgresStatement(
                    "INSERT INTO _sm_cookie_sessions (session_hash, user_schema, user_id, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)",
                    [.text(hash), .text(userSchema), .text(userID), .integer(expiresAt), .integer(createdAt)]), on: connection)
        }
    }

    public func cookieSession(hash: String) async throws -> (userSchema: String, userID: String, expiresAt: Int64)? {
        try await run("SELECT user_schema, user_id, expires_at FROM _sm_cookie_sessions WHERE session_hash = $1", [.text(hash)]).first.map { row in
            let (userSchema, userID, expiresAt) = try row.decode((String, String, Int64).self)
            return (userSchema: userSchema, userID: userID, expiresAt: expiresAt)
        }
    }

    public func deleteCookieSession(hash: String) async throws {
        try await run("DELETE FROM _sm_cookie_sessions WHERE session_hash = $1", [.text(hash)])
    }

    public func appendToOutbox(_ message: MailMessage, at time: Int64) async throws -> Int64 {
        try await run(
            "INSERT INTO _sm_mail_outbox (recipient, subject, body, created_at) VALUES ($1, $2, $3, $4) RETURNING id",
            [.text(message.to), .text(message.subject), .text(message.body), .integer(time)]
        ).first?.decode(Int64.self) ?? 0
    }

    public func outbox() async throws -> [OutboxEntry] {
        try await run("SELECT id, recipient, subject, body, created_at FROM _sm_mail_outbox ORDER BY id", []).map { row in
            let (id, recipient, subject, body, createdAt) = try row.decode((Int64, String, String, String, Int64).self)
            return OutboxEntry(id: id, message: MailMessage(to: recipient, subject: subject, body: body), createdAt: createdAt)
        }
    }

    static let columns = "access_hash, refresh_hash, user_schema, user_id, sealed_mac_key, expires_at, created_at"

    private static func insertStatement(_ session: StoredSession) -> PostgresStatement {
        PostgresStatement(
            "INSERT INTO _sm_tokens (\(columns)) VALUES ($1, $2, $3, $4, $5, $6, $7)",
            [
                .text(session.accessHash), .text(session.refreshHash), .text(session.userSchema), .text(session.userID),
                .bytes(session.sealedMACKey), .integer(session.expiresAt), .integer(session.createdAt),
            ])
    }

    private static func session(_ row: PostgresRow) throws -> StoredSession {
        let (accessHash, refreshHash, userSchema, userID, key, expiresAt, createdAt) =
            try row.decode((String, String, String, String, ByteBuffer, Int64, Int64).self)
        return session(
            accessHash: accessHash, refreshHash: refreshHash, userSchema: userSchema, userID: userID, sealedMACKey: key,
            expiresAt: expiresAt, createdAt: createdAt)
    }

    /// A session from the values of `columns`, in their order.
    static func session(
        accessHash: String, refreshHash: String, userSchema: String, userID: String, sealedMACKey: ByteBuffer, expiresAt: Int64, createdAt: Int64
    ) -> StoredSession {
        StoredSession(
            accessHash: accessHash, refreshHash: refreshHash, userSchema: userSchema, userID: userID,
            sealedMACKey: Array(sealedMACKey.readableBytesView), expiresAt: expiresAt, createdAt: createdAt)
    }
}
