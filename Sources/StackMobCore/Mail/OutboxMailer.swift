import Logging

/// The mailer when no SMTP server is configured: each message goes to the environment's
/// `_sm_mail_outbox` table (read it with `stackmob-server outbox`) and a log line names the
/// recipient and the outbox id, never the body, which holds a temporary password.
public struct OutboxMailer: Mailer {
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
        let id = try await store.appendToOutbox(message, at: clock.nowMilliseconds())
        logger.info(
            "Mail kept in the outbox (no SMTP configured): read it with `stackmob-server outbox`",
            metadata: ["sm.environment": "\(environment.rawValue)", "sm.mail.to": "\(message.to)", "sm.mail.outbox_id": "\(id)"])
    }
}
