import Foundation
import Logging

/// The mailer when no SMTP server is configured: each message goes to the environment's
/// `_sm_mail_outbox` table (read it with `stackmob-server outbox`) and a log line names the
/// recipient and the outbox id, never the body, which holds a temporary password.
///
/// Development's outbox is the developer's mailbox, and keeps the message whole (the SDKs' test
/// suites read temporary passwords there). Production's keeps it without its secret: a
/// temporary password at rest in the database, readable by every operator, would log in as the
/// user; production sends mail through SMTP (docs/guide.md, "Mail").
public struct OutboxMailer: Mailer {
    static let redactedText = "[redacted]"

    let store: any TokenStore
    let clock: any ServerClock
    let environment: EnvironmentKind
    let logger: Logger

    public init(store: any TokenStore, clock: any ServerClock, environment: EnvironmentKind, logger: Logger) {
        self.store = store
        self.clock = clock
        self.environment = environment
        self.logger = logger
    }

    public func send(_ message: MailMessage) async throws {
        var kept = MailMessage(to: message.to, subject: message.subject, body: message.body)
        let redacted = environment == .production ? message.secret.flatMap { $0.isEmpty ? nil : $0 } : nil
        if let redacted { kept.body = message.body.replacingOccurrences(of: redacted, with: Self.redactedText) }
        let id = try await store.appendToOutbox(kept, at: clock.nowMilliseconds())
        let metadata: Logger.Metadata = [
            "sm.environment": "\(environment.rawValue)", "sm.mail.to": "\(message.to)", "sm.mail.outbox_id": "\(id)",
        ]
        if redacted != nil {
            logger.warning("Mail kept in the outbox without its secret (no SMTP configured): configure mail.smtp", metadata: metadata)
        } else {
            logger.info("Mail kept in the outbox (no SMTP configured): read it with `stackmob-server outbox`", metadata: metadata)
        }
    }
}
