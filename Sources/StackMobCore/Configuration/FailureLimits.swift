/// `limits.auth_failures_*`: how many failed attempts at a secret are allowed before each
/// further one waits (`FailureLimiter`: 1 s, doubling, up to one window). 0 turns a kind of key off.
public struct FailureLimits: Sendable, Equatable {
    /// Failed logins, refreshes, password resets, cookie logins and OAuth 1.0 signatures from one
    /// client address.
    public var failuresPerAddress = 50
    /// Failed logins, password resets and cookie logins for one account from one client address;
    /// also the failures for the account from every address past which each address gets one.
    public var failuresPerAccount = 10
    /// How long failures are remembered after the last one and its delay; the longest delay.
    public var windowSeconds = 300

    public init() {}

    public init(failuresPerAddress: Int, failuresPerAccount: Int, windowSeconds: Int) {
        self.failuresPerAddress = failuresPerAddress
        self.failuresPerAccount = failuresPerAccount
        self.windowSeconds = windowSeconds
    }

    /// `forgotPassword`: every request counts, found or not, since each may send mail. A few per
    /// account (the owner has the mails already sent, each with a temporary password), more per
    /// address (several users behind one); fixed, as cheap to keep as to explain.
    public static func forgotPassword(window: Int) -> FailureLimits {
        FailureLimits(failuresPerAddress: 20, failuresPerAccount: 3, windowSeconds: window)
    }
}
