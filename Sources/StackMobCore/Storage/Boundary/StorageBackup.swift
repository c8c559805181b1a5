/// An engine that can copy its database while it serves (`deploy --drop` keeps such a copy).
public protocol StorageBackup: Sendable {
    /// Writes a consistent copy of the whole database to `path`.
    func backup(to path: String) async throws
}
