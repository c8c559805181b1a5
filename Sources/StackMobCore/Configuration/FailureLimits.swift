/// `limits.auth_failures_*`: how many failed attempts at a secret are allowed per window
/// (`FailureLimiter`). 0 turns a kind of key off.
public struct FailureLimits: Sendable, Equatable {
    /// Failed logins, refreshes, password resets, cookie logins and OAuth 1.0 signatures from one
    /// client address per window.
    public var failuresPerAddress = 50
    /// Failed logins, password resets and cookie logins for one account (and forgot-password
    /// requests, successful or not: each sends mail) per window.
    public var failuresPerAccount = 10
    public var windowSeconds = 300

    public init() {}
}
