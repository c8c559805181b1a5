import Foundation
import GRDB
import StackMobCore

/// Durable sending (PROTOCOL §11): accepting a send writes one outbox row per delivery in the
/// same transaction; the delivery service reads due rows and records each outcome.
extension SQLitePushStore {
    public func enqueue(_ payload: PushPayload, to recipients: PushRecipients, fake: Bool, notificationID: String, at now: Int64) async throws
        -> PushSendResult
    {
        try await pool.write { db in
            var targets: [(token: PushToken, user: String?)] = []
            switch recipients {
            case .everyone:
                targets = try Row.fetchAll(db, sql: "SELECT type, token, user_id, registered_at FROM _sm_push_tokens ORDER BY registered_at")
                    .compactMap(Self.registeredToken).map { ($0.token, $0.user) }
            case .users(let users):
                let list = JSONWriter.string(.array(users.map(JSONValue.string)))
                targets = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT type, token, user_id, registered_at FROM _sm_push_tokens
                        WHERE user_id IN (SELECT value FROM json_each(?)) ORDER BY registered_at
                        """,
                    arguments: [list]
                ).compactMap(Self.registeredToken).map { ($0.token, $0.user) }
            case .tokens(let tokens):
                var seen: Set<PushToken> = []
                for token in tokens where seen.insert(token).inserted {
                    let user = try String.fetchOne(
                        db, sql: "SELECT user_id FROM _sm_push_tokens WHERE type = ? AND token = ?", arguments: [token.type.rawValue, token.token])
                    targets.append((token, user))
                }
            }
            let reachable = targets.filter { payload.reaches($0.token.type) }
            if !fake {
                let statement = try db.cachedStatement(
                    sql: """
                        INSERT INTO _sm_push_outbox (notification_id, type, token, user_id, payload, next_attempt_at, created_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """)
                for target in reachable {
                    let body = JSONWriter.string(.object(payload.body(for: target.token.type)), omittingNulls: false)
                    try statement.execute(arguments: [notificationID, target.token.type.rawValue, target.token.token, target.user, body, now, now])
                }
            }
            return PushSendResult(
                notificationID: notificationID, deliveries: fake ? 0 : reachable.count, skippedForSize: targets.count - reachable.count)
        }
    }

    /// One process owns a SQLite database, so nothing needs claiming: the lease is not written,
    /// and deliveries that were in flight at a crash are due again as soon as it restarts.
    public func claimDueDeliveries(limit: Int, at now: Int64, leaseUntil: Int64) async throws -> [PushDelivery] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, notification_id, type, token, user_id, payload, attempts FROM _sm_push_outbox
                    WHERE state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?
                    """,
                arguments: [now, limit]
            ).compactMap { row -> PushDelivery? in
                guard let type = PushTokenType(rawValue: row["type"]), let token = try? PushToken(type: type, token: row["token"]),
                    let payload = (try? JSONParser.parse(row["payload"] as String))?.objectValue
                else { return nil }
                return PushDelivery(
                    id: row["id"], notificationID: row["notification_id"], token: token, user: row["user_id"], payload: payload,
                    attempts: row["attempts"])
            }
        }
    }

    public func markDelivered(_ delivery: PushDelivery, at now: Int64) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE _sm_push_outbox SET state = 'delivered', attempts = attempts + 1, finished_at = ?, last_error = NULL WHERE id = ?",
                arguments: [now, delivery.id])
        }
    }

    public func recordFailure(_ delivery: PushDelivery, reason: String, nextAttemptAt: Int64?, at now: Int64) async throws {
        try await pool.write { db in
            if let nextAttemptAt {
                try db.execute(
                    sql: "UPDATE _sm_push_outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ?",
                    arguments: [nextAttemptAt, reason, delivery.id])
            } else {
                try db.execute(
                    sql: "UPDATE _sm_push_outbox SET state = 'failed', attempts = attempts + 1, last_error = ?, finished_at = ? WHERE id = ?",
                    arguments: [reason, now, delivery.id])
            }
        }
    }

    public func expire(_ delivery: PushDelivery, reason: String, at now: Int64) async throws {
        let type = delivery.token.type.rawValue
        let token = delivery.token.token
        try await pool.write { db in
            let row = try Row.fetchOne(db, sql: "SELECT user_id, registered_at FROM _sm_push_tokens WHERE type = ? AND token = ?", arguments: [type, token])
            var user = delivery.user
            var registeredAt = now
            if let row {
                user = row["user_id"] as String?
                registeredAt = row["registered_at"]
            }
            try db.execute(
                sql: """
                    INSERT INTO _sm_push_expired (type, token, user_id, registered_at, expired_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (type, token) DO UPDATE SET expired_at = excluded.expired_at
                    """,
                arguments: [type, token, user, registeredAt, now])
            try db.execute(sql: "DELETE FROM _sm_push_tokens WHERE type = ? AND token = ?", arguments: [type, token])
            try db.execute(
                sql: """
                    UPDATE _sm_push_outbox SET state = 'expired', last_error = ?, finished_at = ?,
                    attempts = attempts + (CASE WHEN id = ? THEN 1 ELSE 0 END)
                    WHERE state = 'pending' AND type = ? AND token = ?
                    """,
                arguments: [reason, now, delivery.id, type, token])
        }
    }

    public func outboxCounts() async throws -> [String: Int] {
        try await pool.read { db in
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM _sm_push_outbox GROUP BY state") {
                counts[row["state"]] = row["n"]
            }
            return counts
        }
    }

    public func sweepFinishedDeliveries(before cutoff: Int64) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM _sm_push_outbox WHERE state <> 'pending' AND finished_at < ?", arguments: [cutoff])
            return db.changesCount
        }
    }
}
