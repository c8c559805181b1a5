import Foundation
import PostgresNIO
import StackMobCore

/// The push registry and delivery outbox on PostgreSQL. With several instances on one
/// database, due deliveries are claimed with `FOR UPDATE SKIP LOCKED`, so each is handed to one
/// instance only.
public struct PostgresPushStore: PushStore {
    let database: PostgresPool

    @discardableResult
    private func run(_ sql: String, _ values: [StoredValue], on connection: PostgresConnection? = nil) async throws -> [PostgresRow] {
        try await database.run(sql, values, on: connection)
    }

    public func register(_ token: PushToken, user: String?, overwrite: Bool, at now: Int64) async throws {
        let key: [StoredValue] = [.text(token.type.rawValue), .text(token.token)]
        try await database.writeTransaction { connection in
            let exists = try await !run("SELECT 1 FROM _sm_push_tokens WHERE type = $1 AND token = $2 FOR UPDATE", key, on: connection).isEmpty
            if exists && !overwrite { throw PushError.tokenAlreadyRegistered }
            try await run(
                """
                INSERT INTO _sm_push_tokens (type, token, user_id, registered_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (type, token) DO UPDATE SET user_id = excluded.user_id, registered_at = excluded.registered_at
                """, key + [.optionalText(user), .integer(now)], on: connection)
            try await run("DELETE FROM _sm_push_expired WHERE type = $1 AND token = $2", key, on: connection)
        }
    }

    public func remove(_ token: PushToken) async throws -> Bool {
        try await !run(
            "DELETE FROM _sm_push_tokens WHERE type = $1 AND token = $2 RETURNING 1", [.text(token.type.rawValue), .text(token.token)]
        ).isEmpty
    }

    public func tokens(forUsers users: [String]) async throws -> [RegisteredToken] {
        try await run(
            """
            SELECT type, token, user_id, registered_at FROM _sm_push_tokens
            WHERE user_id IN (SELECT jsonb_array_elements_text($1::jsonb)) ORDER BY registered_at, type, token
            """, [.text(JSONWriter.string(.array(users.map(JSONValue.string))))]
        ).compactMap(Self.registeredToken)
    }

    public func allTokens() async throws -> [RegisteredToken] {
        try await run("SELECT type, token, user_id, registered_at FROM _sm_push_tokens ORDER BY type, token", []).compactMap(Self.registeredToken)
    }

    public func expiredTokens(clear: Bool) async throws -> [RegisteredToken] {
        try await database.writeTransaction { connection in
            let rows = try await run(
                "SELECT type, token, user_id, registered_at FROM _sm_push_expired ORDER BY expired_at, type, token FOR UPDATE", [],
                on: connection)
            if clear { try await run("DELETE FROM _sm_push_expired", [], on: connection) }
            return try rows.compactMap(Self.registeredToken)
        }
    }

    public func enqueue(_ payload: PushPayload, to recipients: PushRecipients, fake: Bool, notificationID: String, at now: Int64) async throws
        -> PushSendResult
    {
        try await database.writeTransaction { connection in
            var targets: [(token: PushToken, user: String?)] = []
            switch recipients {
            case .everyone:
                targets = try await run("SELECT type, token, user_id, registered_at FROM _sm_push_tokens ORDER BY registered_at", [], on: connection)
                    .compactMap(Self.registeredToken).map { ($0.token, $0.user) }
            case .users(let users):
                targets = try await run(
                    """
                    SELECT type, token, user_id, registered_at FROM _sm_push_tokens
                    WHERE user_id IN (SELECT jsonb_array_elements_text($1::jsonb)) ORDER BY registered_at
                    """, [.text(JSONWriter.string(.array(users.map(JSONValue.string))))], on: connection
                ).compactMap(Self.registeredToken).map { ($0.token, $0.user) }
            case .tokens(let tokens):
                var seen: Set<PushToken> = []
                for token in tokens where seen.insert(token).inserted {
                    let user = try await run(
                        "SELECT user_id FROM _sm_push_tokens WHERE type = $1 AND token = $2", [.text(token.type.rawValue), .text(token.token)],
                        on: connection
                    ).first?.decode(String?.self)
                    targets.append((token, user ?? nil))
                }
            }
            let reachable = targets.filter { payload.reaches($0.token.type) }
            if !fake {
                for target in reachable {
                    let body = JSONWriter.string(.object(payload.body(for: target.token.type)), omittingNulls: false)
                    try await run(
                        """
                        INSERT INTO _sm_push_outbox (notification_id, type, token, user_id, payload, next_attempt_at, created_at)
                        VALUES ($1, $2, $3, $4, $5, $6, $7)
                        """,
                        [
                            .text(notificationID), .text(target.token.type.rawValue), .text(target.token.token), .optionalText(target.user),
                            .text(body), .integer(now), .integer(now),
                        ], on: connection)
                }
            }
            return PushSendResult(
                notificationID: notificationID, deliveries: fake ? 0 : reachable.count, skippedForSize: targets.count - reachable.count)
        }
    }

    public func claimDueDeliveries(limit: Int, at now: Int64, leaseUntil: Int64) async throws -> [PushDelivery] {
        // One statement: the rows another instance holds are skipped, and the claimed ones wait
        // until the lease ends before anyone else sees them as due.
        try await run(
            """
            UPDATE _sm_push_outbox SET next_attempt_at = $3 WHERE id IN (
                SELECT id FROM _sm_push_outbox WHERE state = 'pending' AND next_attempt_at <= $1
                ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
            RETURNING id, notification_id, type, token, user_id, payload, attempts
            """, [.integer(now), .integer(Int64(limit)), .integer(leaseUntil)]
        ).compactMap { row -> PushDelivery? in
            let (id, notificationID, type, token, user, payload, attempts) =
                try row.decode((Int64, String, String, String, String?, String, Int32).self)
            guard let type = PushTokenType(rawValue: type), let token = try? PushToken(type: type, token: token),
                let body = (try? JSONParser.parse(payload))?.objectValue
            else { return nil }
            return PushDelivery(id: id, notificationID: notificationID, token: token, user: user, payload: body, attempts: Int(attempts))
        }.sorted { $0.id < $1.id }
    }

    public func markDelivered(_ delivery: PushDelivery, at now: Int64) async throws {
        try await run(
            "UPDATE _sm_push_outbox SET state = 'delivered', attempts = attempts + 1, finished_at = $1, last_error = NULL WHERE id = $2",
            [.integer(now), .integer(delivery.id)])
    }

    public func recordFailure(_ delivery: PushDelivery, reason: String, nextAttemptAt: Int64?, at now: Int64) async throws {
        if let nextAttemptAt {
            try await run(
                "UPDATE _sm_push_outbox SET attempts = attempts + 1, next_attempt_at = $1, last_error = $2 WHERE id = $3",
                [.integer(nextAttemptAt), .text(reason), .integer(delivery.id)])
        } else {
            try await run(
                "UPDATE _sm_push_outbox SET state = 'failed', attempts = attempts + 1, last_error = $1, finished_at = $2 WHERE id = $3",
                [.text(reason), .integer(now), .integer(delivery.id)])
        }
    }

    public func expire(_ delivery: PushDelivery, reason: String, at now: Int64) async throws {
        let key: [StoredValue] = [.text(delivery.token.type.rawValue), .text(delivery.token.token)]
        try await database.writeTransaction { connection in
            let row = try await run("SELECT user_id, registered_at FROM _sm_push_tokens WHERE type = $1 AND token = $2 FOR UPDATE", key, on: connection)
                .first
            var user = delivery.user
            var registeredAt = now
            if let row { (user, registeredAt) = try row.decode((String?, Int64).self) }
            try await run(
                """
                INSERT INTO _sm_push_expired (type, token, user_id, registered_at, expired_at) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (type, token) DO UPDATE SET expired_at = excluded.expired_at
                """, key + [.optionalText(user), .integer(registeredAt), .integer(now)], on: connection)
            try await run("DELETE FROM _sm_push_tokens WHERE type = $1 AND token = $2", key, on: connection)
            try await run(
                """
                UPDATE _sm_push_outbox SET state = 'expired', last_error = $3, finished_at = $4,
                attempts = attempts + (CASE WHEN id = $5 THEN 1 ELSE 0 END)
                WHERE state = 'pending' AND type = $1 AND token = $2
                """, key + [.text(reason), .integer(now), .integer(delivery.id)], on: connection)
        }
    }

    public func outboxCounts() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try await run("SELECT state, COUNT(*) FROM _sm_push_outbox GROUP BY state", []) {
            let (state, count) = try row.decode((String, Int64).self)
            counts[state] = Int(count)
        }
        return counts
    }

    public func sweepFinishedDeliveries(before cutoff: Int64) async throws -> Int {
        try await run("DELETE FROM _sm_push_outbox WHERE state <> 'pending' AND finished_at < $1 RETURNING 1", [.integer(cutoff)]).count
    }

    private static func registeredToken(_ row: PostgresRow) throws -> RegisteredToken? {
        let (type, token, user, registeredAt) = try row.decode((String, String, String?, Int64).self)
        return RegisteredToken(type: type, token: token, user: user, registeredMilliseconds: registeredAt)
    }
}
