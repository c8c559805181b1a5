/// What `/ready`, `/metrics` and the console's overview ask of an environment
/// (docs/operations.md, "Monitoring" and "Web console").
extension AppEnvironment {
    /// Whether the environment's database answers a read.
    public func ping() async throws {
        _ = try await datastore.storage.read { _ in true }
    }

    /// Mail kept in the outbox (no SMTP configured): what a forgotPassword would have sent.
    public func mailOutboxDepth() async throws -> Int {
        try await users.store.outbox().count
    }

    /// The bytes the environment's database takes on disk; nil when its engine cannot tell.
    public func databaseSize() async throws -> Int64? {
        try await datastore.storage.databaseSize()
    }
}
