/// MAC requests already seen, to refuse replays (PROTOCOL §3.2 step 6, D19).
///
/// Keyed as `SeenRequest` keys a request, on (token, ts, nonce, mac). An entry is only needed
/// while its timestamp is inside the window; after that the timestamp check refuses the request
/// anyway.
public actor NonceCache: NonceStore {
    private var expiries: [String: Int64] = [:]
    private let capacity: Int

    public init(capacity: Int = 200_000) {
        self.capacity = capacity
    }

    /// Records the request; false when it was seen before and has not expired.
    public func record(_ request: SeenRequest) -> Bool {
        if let expiry = expiries[request.key], expiry > request.now { return false }
        if expiries.count >= capacity { evict(now: request.now) }
        expiries[request.key] = request.expiresAt
        return true
    }

    public func sweep(now: Int64) -> Int {
        let before = expiries.count
        expiries = expiries.filter { $0.value > now }
        return before - expiries.count
    }

    /// Drops expired entries; if the cache is still full (a flood within one window), the half
    /// closest to expiry goes, keeping memory bounded.
    private func evict(now: Int64) {
        expiries = expiries.filter { $0.value > now }
        guard expiries.count >= capacity else { return }
        let keep = expiries.sorted { $0.value > $1.value }.prefix(capacity / 2)
        expiries = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
    }
}
