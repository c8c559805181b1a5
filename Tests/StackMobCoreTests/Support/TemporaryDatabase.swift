import Foundation
import StackMobCore
import StackMobSQLite

/// A SQLite storage engine on a new temporary directory, for tests of the domain below HTTP.
enum TemporaryDatabase {
    /// Opens the engine, runs `body`, then closes the engine and removes the directory.
    static func withEngine<T>(
        statementCounter: StatementCounter? = nil, _ body: (SQLiteStorageEngine, SchemaRegistry) async throws -> T
    ) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stackmob-core-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let registry = SchemaRegistry()
        let engine = try await SQLiteStorageEngine.open(
            path: "\(directory)/test.sqlite", durability: .normal, registry: registry, statementCounter: statementCounter)
        return try await closing(engine) { try await body(engine, registry) }
    }

    /// `withEngine` with a datastore over it: schema inference on, no user schemas, and a
    /// password hasher of one round.
    static func withDatastore<T>(
        statementCounter: StatementCounter? = nil, _ body: (SQLiteStorageEngine, SchemaRegistry, Datastore) async throws -> T
    ) async throws -> T {
        try await withEngine(statementCounter: statementCounter) { engine, registry in
            let datastore = try await Datastore.open(
                storage: engine, registry: registry, inferenceEnabled: true, userSchemas: [], passwordHasher: PasswordHasher(rounds: 1))
            return try await body(engine, registry, datastore)
        }
    }

    /// Runs `body`, then closes `engine`, whether `body` returned or threw (a `defer` cannot
    /// await the close).
    static func closing<T>(_ engine: SQLiteStorageEngine, _ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            try await engine.close()
            return value
        } catch {
            try? await engine.close()
            throw error
        }
    }
}
