/// How far a signed request's timestamp may be from the server's clock, for MAC (PROTOCOL §3.2)
/// and OAuth 1.0 (§3.3) signatures alike.
///
/// The timestamp is the client's, checked before the signature so that a stale request fails
/// cheaply: every value an `Int64` holds must be refused or accepted without trapping
/// (`ts="-9223372036854775807"` once stopped the server).
struct SignatureTimestampWindow {
    /// 0: timestamps are not checked.
    let seconds: Int64

    /// Whether `timestamp` (seconds since the epoch) is within the window of `now` (milliseconds).
    func admits(_ timestamp: Int64, now: Int64) -> Bool {
        guard seconds > 0 else { return true }
        let (difference, overflow) = (now / 1000).subtractingReportingOverflow(timestamp)
        return !overflow && difference.magnitude <= seconds.magnitude
    }

    /// Until when (milliseconds) a nonce seen with `timestamp` must be remembered: after that the
    /// window refuses the timestamp anyway. Saturates rather than overflows.
    func nonceExpiry(for timestamp: Int64, now: Int64) -> Int64 {
        guard seconds > 0 else { return now.saturatingAdd(600_000) }
        let (milliseconds, overflow) = timestamp.saturatingAdd(seconds).multipliedReportingOverflow(by: 1000)
        return overflow ? (timestamp < 0 ? .min : .max) : milliseconds
    }
}

extension Int64 {
    /// `self + other`, clamped to the representable range instead of trapping.
    func saturatingAdd(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other < 0 ? .min : .max
    }
}
