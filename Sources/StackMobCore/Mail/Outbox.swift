import Foundation

/// Reading the outbox of an environment, for the `outbox` subcommand: the mail the server would
/// have sent had SMTP been configured (temporary passwords in development).
public enum Outbox {
    public static func read(configuration: ServerConfiguration, environment: EnvironmentKind) async throws -> [OutboxEntry] {
        let path = (configuration.dataDirectory as NSString).appendingPathComponent("\(environment.rawValue).sqlite")
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let engine = try SQLiteStorageEngine(path: path, durability: configuration.durability, registry: SchemaRegistry())
        return try await SQLiteTokenStore(engine: engine).outbox()
    }
}
