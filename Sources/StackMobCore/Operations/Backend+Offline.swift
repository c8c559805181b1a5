import Logging

extension Backend {
    /// Opens the data directory as `serve` does, runs `body` and closes it again: the commands
    /// that work on the data without serving (export, import).
    public static func withOpened<Value: Sendable>(
        _ configuration: StackMobConfiguration, storage: any StorageProvider, logger: Logger, _ body: (Backend) async throws -> Value
    ) async throws -> Value {
        let backend = try await Backend.open(configuration, storage: storage, logger: logger)
        do {
            let value = try await body(backend)
            try await backend.close()
            return value
        } catch {
            try? await backend.close()
            throw error
        }
    }
}
