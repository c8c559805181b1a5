import Logging

/// The work behind `stackmob-server admin add <name>`: opens the data directory as `serve` does
/// and creates an operator account in the production database.
public enum AdminTool {
    public static func addOperator(
        configuration: StackMobConfiguration, storage: any StorageProvider, name: String, password: String, logger: Logger
    ) async throws {
        try await Backend.withOpened(configuration, storage: storage, logger: logger) { backend in
            try await backend.operators.add(name: name, password: password)
        }
    }
}
