import Synchronization

/// The opened MAC keys of recent sessions.
///
/// A signed request reads its session row every time, so a revoked or refreshed token stops
/// working at once; but opening the sealed key (`SessionSecrets.open`: HKDF, then AES-GCM) cost
/// more than the signature check itself, and gave the same key for the same row. A key is reused
/// only for the same access hash and the same sealed bytes, which only the same access token
/// opens. At `capacity` entries the cache starts again empty: a bound, not an eviction policy,
/// since keys are cheap to open again.
final class MACKeyCache: Sendable {
    typealias Opener = @Sendable (_ sealed: [UInt8], _ accessToken: String) -> String?

    private let entries = Mutex<[String: (sealed: [UInt8], key: String)]>([:])
    private let capacity: Int
    private let open: Opener

    init(capacity: Int = 4096, open: @escaping Opener = { SessionSecrets.open(sealed: $0, accessToken: $1) }) {
        self.capacity = capacity
        self.open = open
    }

    /// The MAC key of `session`, whose access hash is the hash of `accessToken`; nil when the
    /// sealed bytes do not open with that token.
    func key(of session: StoredSession, accessToken: String) -> String? {
        if let entry = entries.withLock({ $0[session.accessHash] }), entry.sealed == session.sealedMACKey {
            return entry.key
        }
        guard let key = open(session.sealedMACKey, accessToken) else { return nil }
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[session.accessHash] = (sealed: session.sealedMACKey, key: key)
        }
        return key
    }
}
