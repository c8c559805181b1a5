import Synchronization
import Testing

@testable import StackMobCore

@Suite("MAC key cache")
struct MACKeyCacheTests {
    private func session(_ token: String, macKey: String) throws -> StoredSession {
        StoredSession(
            accessHash: SessionSecrets.hash(token), refreshHash: "r", userSchema: "user", userID: "olivia",
            sealedMACKey: try SessionSecrets.seal(macKey: macKey, accessToken: token), expiresAt: 1, createdAt: 0)
    }

    @Test("a session's key is opened once; a new sealed key for the same token is opened again; a wrong token opens nothing")
    func opensOnce() throws {
        let opens = Mutex(0)
        let cache = MACKeyCache { sealed, token in
            opens.withLock { $0 += 1 }
            return SessionSecrets.open(sealed: sealed, accessToken: token)
        }
        let first = try session("token-a", macKey: "key-1")
        #expect(cache.key(of: first, accessToken: "token-a") == "key-1")
        #expect(cache.key(of: first, accessToken: "token-a") == "key-1")
        #expect(opens.withLock { $0 } == 1)
        // The same token's row sealed again (another key): the cached key does not answer for it.
        let resealed = try session("token-a", macKey: "key-2")
        #expect(cache.key(of: resealed, accessToken: "token-a") == "key-2")
        #expect(opens.withLock { $0 } == 2)
        // Bytes that do not open with the token give no key, and none is kept.
        var forged = try session("token-b", macKey: "key-3")
        forged.sealedMACKey = first.sealedMACKey
        #expect(cache.key(of: forged, accessToken: "token-b") == nil)
        #expect(cache.key(of: forged, accessToken: "token-b") == nil)
        #expect(opens.withLock { $0 } == 4)
    }

    @Test("past its capacity the cache starts again and still answers right")
    func bounded() throws {
        let opens = Mutex(0)
        let cache = MACKeyCache(capacity: 2) { sealed, token in
            opens.withLock { $0 += 1 }
            return SessionSecrets.open(sealed: sealed, accessToken: token)
        }
        let sessions = try (0..<3).map { try session("token-\($0)", macKey: "key-\($0)") }
        for (index, stored) in sessions.enumerated() {
            #expect(cache.key(of: stored, accessToken: "token-\(index)") == "key-\(index)")
        }
        // The third entry emptied the cache: the first is opened again, the third is still there.
        #expect(cache.key(of: sessions[0], accessToken: "token-0") == "key-0")
        #expect(cache.key(of: sessions[2], accessToken: "token-2") == "key-2")
        #expect(opens.withLock { $0 } == 4)
    }
}
