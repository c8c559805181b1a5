import Logging

/// The work behind `stackmob-server admin add <name>`: opens the data directory as `serve` does
/// and creates an operator account in the production database.
public enum AdminTool {
    public static func addOperator(
        configuration: ServerConfiguration, storage: any StorageProvider, name: String, password: String, logger: Logger
    ) async throws {
        let backend = try await Backend.open(configuration, storage: storage, logger: logger)
        do {
            try await backend.operators.add(name: name, password: password)
            try await backend.close()
        } catch {
            try? await backend.close()
            throw error
        }
    }
}
