/// A message kept in the outbox table instead of being sent.
public struct OutboxEntry: Sendable, Equatable {
    public var id: Int64
    public var message: MailMessage
    public var createdAt: Int64

    public init(id: Int64, message: MailMessage, createdAt: Int64) {
        self.id = id
        self.message = message
        self.createdAt = createdAt
    }
}
