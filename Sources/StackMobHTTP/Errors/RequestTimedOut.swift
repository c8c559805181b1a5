/// A request that took longer than `limits.request_timeout_seconds`.
struct RequestTimedOut: Error, Sendable {
    let seconds: Int
}
