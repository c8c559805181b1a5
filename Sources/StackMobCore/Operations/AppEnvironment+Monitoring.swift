/// What `/ready` and `/metrics` ask of an environment (docs/operations.md, "Monitoring").
extension AppEnvironment {
    /// Whether the environment's database answers a read.
    public func ping() async throws {
        _ = try await datastore.storage.read { _ in true }
    }

    /// Mail kept in the outbox (no SMTP configured): what a forgotPassword would have sent.
    public func mailOutboxDepth() async throws -> Int {
        try await users.store.outbox().count
    }
}
