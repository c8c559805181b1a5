/// One plain-text e-mail the server sends (today: the temporary password of forgotPassword, §8.6).
public struct MailMessage: Sendable, Equatable {
    public var to: String
    public var subject: String
    public var body: String
    /// The part of `body` that must not be kept where others may read it (the temporary
    /// password): the production outbox stores the message without it (`OutboxMailer`).
    public var secret: String?

    public init(to: String, subject: String, body: String, secret: String? = nil) {
        self.to = to
        self.subject = subject
        self.body = body
        self.secret = secret
    }
}

/// Sends mail. Implementations: SMTP when configured; otherwise an outbox table plus a log line,
/// so a developer can read the message locally.
///
/// `send` is called after the transaction that decided to send has committed: mail is network
/// I/O and never happens inside a database transaction.
public protocol Mailer: Sendable {
    func send(_ message: MailMessage) async throws
}
