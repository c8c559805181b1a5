/// Reading the outbox of an environment, for the `outbox` subcommand: the mail the server would
/// have sent had SMTP been configured (temporary passwords in development).
public enum Outbox {
    public static func read(storage: any StorageProvider, environment: EnvironmentKind) async throws -> [OutboxEntry] {
        let opened = try await storage.open(environment, registry: SchemaRegistry(), indexes: [:])
        do {
            let entries = try await opened.tokens.outbox()
            try await opened.engine.close()
            return entries
        } catch {
            try? await opened.engine.close()
            throw error
        }
    }
}
