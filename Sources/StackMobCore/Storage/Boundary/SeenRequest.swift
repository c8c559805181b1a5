/// A signed request as the replay record remembers it (PROTOCOL §3.2 step 6): by its token,
/// timestamp, nonce and mac, until `expiresAt`.
///
/// The key holds the mac because the SDKs draw nonces from only about 10⁴ values: two honest
/// requests may share (ts, nonce), never the mac too.
public struct SeenRequest: Sendable, Equatable {
    /// The one key every replay record files the request under.
    public let key: String
    /// Until when (milliseconds) the record refuses the same request again.
    public let expiresAt: Int64
    /// The server's clock when the request arrived (milliseconds): a record that expired by then
    /// no longer refuses it.
    public let now: Int64

    public init(token: String, ts: Int64, nonce: String, mac: String, expiresAt: Int64, now: Int64) {
        key = "\(token)\n\(ts)\n\(nonce)\n\(mac)"
        self.expiresAt = expiresAt
        self.now = now
    }
}
