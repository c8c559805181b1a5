extension UserAccounts {
    /// The mail kept instead of sent (no SMTP server configured), oldest first: the admin API's
    /// view of what `stackmob-server outbox` prints, read through the environment's own store.
    public func mailOutbox() async throws -> [OutboxEntry] {
        try await store.outbox()
    }
}
