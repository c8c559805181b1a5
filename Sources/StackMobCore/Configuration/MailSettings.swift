/// Outgoing mail (forgotPassword, PROTOCOL §8.6): the sender, and the SMTP relay when one is
/// configured. Without an SMTP host, mail goes to each environment's outbox table.
public struct MailSettings: Sendable, Equatable {
    /// The `From` address (also the SMTP envelope sender).
    public var from = "no-reply@localhost"
    public var smtp = SMTPSettings()

    public init() {}
}

public struct SMTPSettings: Sendable, Equatable {
    /// nil = no SMTP: mail goes to the outbox.
    public var host: String?
    public var port = 587
    /// Upgrade the connection with STARTTLS before authenticating (refuse servers that do not offer it).
    public var startTLS = true
    public var username: String?
    /// Secret: never logged.
    public var password: String?
    /// PEM file of the certificate authorities to trust instead of the system's (a private relay).
    public var caFile: String?
    /// Limit for connecting and for each reply of the server.
    public var timeoutSeconds = 30

    public init() {}
}
