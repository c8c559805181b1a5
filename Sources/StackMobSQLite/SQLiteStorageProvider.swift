import Foundation
import Logging
import StackMobCore

/// The embedded default: one SQLite file per environment in the data directory
/// (`<data_dir>/development.sqlite`, `<data_dir>/production.sqlite`), served by this process only.
public struct SQLiteStorageProvider: StorageProvider {
    let dataDirectory: String
    let durability: StorageSettings.Durability
    let statementCounter: StatementCounter?
    let logger: Logger

    /// - Parameter statementCounter: counts every SQL statement (tests); nil costs nothing.
    public init(
        dataDirectory: String, durability: StorageSettings.Durability, statementCounter: StatementCounter? = nil,
        logger: Logger = Logger(label: "stackmob.sqlite")
    ) {
        self.dataDirectory = dataDirectory
        self.durability = durability
        self.statementCounter = statementCounter
        self.logger = logger
    }

    public func location(of environment: EnvironmentKind) -> String {
        (dataDirectory as NSString).appendingPathComponent("\(environment.rawValue).sqlite")
    }

    public func open(_ environment: EnvironmentKind, registry: SchemaRegistry, indexes: [String: [[String]]]) async throws
        -> EnvironmentStorage
    {
        try PrivateFiles.createDirectory(atPath: dataDirectory)
        let engine = try await SQLiteStorageEngine.open(
            path: location(of: environment), durability: durability, registry: registry, indexes: indexes,
            statementCounter: statementCounter, logger: logger)
        return EnvironmentStorage(
            engine: engine, tokens: SQLiteTokenStore(engine: engine), push: SQLitePushStore(engine: engine),
            operators: SQLiteOperatorStorage(engine: engine), nonces: NonceCache())
    }
}
