/// `/metrics`, `/health` and `/ready` (`monitoring.*`).
///
/// On the API port they are answered only to loopback clients, or to a client presenting
/// `Authorization: Bearer <key>` when `key` is set, so they are never open on a public API
/// without a key. With `port`, they are also served on a listener of their own at `host:port`
/// (loopback by default) for a scraper that sits elsewhere.
public struct MonitoringSettings: Sendable, Equatable {
    /// Whether the routes exist at all.
    public var enabled = true
    /// The monitoring listener's address (only with `port`).
    public var host = "127.0.0.1"
    /// Nil = no listener of its own: the routes are only on the API port (loopback or key).
    public var port: Int?
    /// A bearer key that opens the routes to any address. Secret.
    public var key: String?
    /// An event loop that runs its periodic check this much later than due is logged at
    /// `warning`: something ran on it for that long (`monitoring.stall_warning_ms`).
    public var stallWarningMilliseconds = 100

    public init() {}
}
