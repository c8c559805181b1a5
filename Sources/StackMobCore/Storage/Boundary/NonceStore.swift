/// Where MAC requests already seen are remembered, to refuse replays (PROTOCOL §3.2 step 6).
public protocol NonceStore: Sendable {
    /// Records the request; false when it was seen before and has not expired.
    func record(_ request: SeenRequest) async throws -> Bool
    /// Forgets the entries whose window has passed (the retention sweep); returns how many went.
    func sweep(now: Int64) async throws -> Int
}
