import Logging
import PostgresNIO
import StackMobCore
import StackMobMigrations

/// PostgreSQL (`storage.engine: postgresql`): both environments in one database, each in its
/// own schema (`stackmob_development`, `stackmob_production`), any number of server instances
/// on it.
public struct PostgresStorageProvider: StorageProvider {
    let settings: PostgreSQLSettings
    let logger: Logger

    public init(settings: PostgreSQLSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    public func location(of environment: EnvironmentKind) -> String {
        "\(PostgresURL.redacted(settings)) (schema \(settings.schemaName(for: environment)))"
    }

    public func open(_ environment: EnvironmentKind, registry: SchemaRegistry, indexes: [String: [[String]]]) async throws
        -> EnvironmentStorage
    {
        let schema = settings.schemaName(for: environment)
        let database = try PostgresPool(settings: settings, schema: schema, logger: logger)
        // Started first, so that it usually listens by the first request.
        let listener = PostgresSchemaListener(settings: settings, channel: schema, logger: logger)
        do {
            try await withDeadline(seconds: settings.connectTimeoutSeconds) {
                try await PostgresMigrator.migrate(database, schema: schema, migrations: PostgreSQLMigrations.all)
            }
            let engine = try await PostgresStorageEngine(database: database, listener: listener, registry: registry, indexes: indexes)
            let tokens = PostgresTokenStore(database: database)
            return EnvironmentStorage(
                engine: engine, tokens: tokens, push: PostgresPushStore(database: database),
                operators: PostgresOperatorStorage(database: database), nonces: PostgresNonceStore(database: database),
                signedSessions: tokens)
        } catch {
            listener.close()
            database.close()
            if error is DeadlineExceeded {
                throw StorageUnavailableError(
                    "PostgreSQL at \(PostgresURL.redacted(settings)) did not answer within \(settings.connectTimeoutSeconds) s "
                        + "(storage.postgresql.connect_timeout_seconds)")
            }
            if let error = error as? PSQLError {
                let message = error.serverInfo?[.message] ?? "\(error.code)"
                throw StorageUnavailableError("PostgreSQL at \(PostgresURL.redacted(settings)) refused to open the \(environment.rawValue) schema: \(message)")
            }
            throw error
        }
    }
}

struct DeadlineExceeded: Error {}

/// Runs `body`, or gives up with `DeadlineExceeded` after `seconds` (a pool that cannot connect
/// keeps retrying rather than failing).
func withDeadline<T: Sendable>(seconds: Int, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw DeadlineExceeded()
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
