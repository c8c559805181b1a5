import Logging

extension Backend {
    /// Opens the data directory as `serve` does, runs `body` and closes it again: the commands
    /// that work on the data without serving (export, import).
    public static func withOpened<Value: Sendable>(
        _ configuration: ServerConfiguration, logger: Logger, _ body: (Backend) async throws -> Value
    ) async throws -> Value {
        let backend = try await Backend.open(configuration, logger: logger)
        do {
            let value = try await body(backend)
            try backend.close()
            return value
        } catch {
            try? backend.close()
            throw error
        }
    }
}
