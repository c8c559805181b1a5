/// A message kept in the outbox table instead of being sent.
public struct OutboxEntry: Sendable, Equatable {
    public var id: Int64
    public var message: MailMessage
    public var createdAt: Int64
}
