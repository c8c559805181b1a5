import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// The retention sweep's part for users (docs/operations.md, "Retention"): what can no longer be
/// used goes, everything that still works stays. On the engine the suite runs on: SQLite, and
/// PostgreSQL in the test command's second run.
@Suite("Session sweep")
struct SessionSweepTests {
    static let now: Int64 = 1_800_000_000_000
    static let day: Int64 = 86_400_000

    static func session(_ name: String, expiresAt: Int64, createdAt: Int64) -> StoredSession {
        StoredSession(
            accessHash: "access-\(name)", refreshHash: "refresh-\(name)", userSchema: "user", userID: name, sealedMACKey: [1, 2, 3],
            expiresAt: expiresAt, createdAt: createdAt)
    }

    @Test("deletes sessions whose access and refresh tokens have both expired, keeps the others")
    func sweep() async throws {
        try await TestServer.withDataDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let storage = try await TestServer.storage(TestServer.configuration(dataDirectory: directory))
                .open(.development, registry: SchemaRegistry(), indexes: [:])
            let store = storage.tokens
            let refreshIssuedBefore = Self.now - 30 * Self.day
            // Access token expired, refresh token past its lifetime: unusable.
            try await store.insertSession(Self.session("dead", expiresAt: Self.now - 31 * Self.day, createdAt: Self.now - 31 * Self.day - 1), replacingOthers: false)
            // Access token expired, refresh token still within its lifetime: a refresh revives it.
            try await store.insertSession(Self.session("refreshable", expiresAt: Self.now - Self.day, createdAt: Self.now - 2 * Self.day), replacingOthers: false)
            // Access token still valid.
            try await store.insertSession(Self.session("live", expiresAt: Self.now + 3_600_000, createdAt: Self.now), replacingOthers: false)
            try await store.insertCookieSession(hash: "cookie-old", userSchema: "user", userID: "dead", expiresAt: Self.now - 1)
            try await store.setTemporaryPassword(userSchema: "user", userID: "dead", hash: "x", expiresAt: Self.now - 1)
            try await store.setTemporaryPassword(userSchema: "user", userID: "live", hash: "y", expiresAt: Self.now + Self.day)

            let deleted = try await store.sweepExpired(now: Self.now, refreshIssuedBefore: refreshIssuedBefore)
            #expect(deleted == 3)
            #expect(try await store.session(accessHash: "access-dead") == nil)
            #expect(try await store.session(refreshHash: "refresh-refreshable") != nil)
            #expect(try await store.session(accessHash: "access-live") != nil)
            #expect(try await store.cookieSession(hash: "cookie-old") == nil)
            #expect(try await store.temporaryPassword(userSchema: "user", userID: "dead") == nil)
            #expect(try await store.temporaryPassword(userSchema: "user", userID: "live") != nil)
            // A second sweep finds nothing.
            #expect(try await store.sweepExpired(now: Self.now, refreshIssuedBefore: refreshIssuedBefore) == 0)
            try await storage.engine.close()
        }
    }
}
