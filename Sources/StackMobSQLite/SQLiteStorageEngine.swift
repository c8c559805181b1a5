import Foundation
import GRDB
import Logging
import StackMobCore
import StackMobMigrations

/// The SQLite storage engine: one database file per environment, one `DatabasePool` (WAL mode,
/// one writer, concurrent readers) for the life of the process, one table per user schema.
public final class SQLiteStorageEngine: StorageEngine, StorageBackup {
    public typealias Durability = StorageSettings.Durability

    let pool: SQLitePool
    private let registry: SchemaRegistry
    private let indexes: IndexPlan

    /// Opens (creating it if need be) and migrates the database at `path`, on a thread of its own
    /// (`ThreadOfItsOwn`): opening waits for files, locks and every reader connection.
    ///
    /// - Parameter indexes: fields to index, by schema (configuration).
    /// - Parameter statementCounter: counts every SQL statement run (tests); nil in production, so
    ///   that tracing costs nothing.
    /// - Parameter logger: what opening does to the database file (indexes made again).
    public static func open(
        path: String, durability: Durability, registry: SchemaRegistry, indexes: [String: [[String]]] = [:],
        statementCounter: StatementCounter? = nil, logger: Logger = Logger(label: "stackmob.sqlite")
    ) async throws -> SQLiteStorageEngine {
        try await ThreadOfItsOwn.run("StackMob.sqlite.open") {
            try SQLiteStorageEngine(
                path: path, durability: durability, registry: registry, indexes: indexes, statementCounter: statementCounter, logger: logger)
        }
    }

    private init(
        path: String, durability: Durability, registry: SchemaRegistry, indexes: [String: [[String]]],
        statementCounter: StatementCounter?, logger: Logger
    ) throws {
        var configuration = GRDB.Configuration()
        // Another process (a backup, the sqlite3 shell) may hold the lock briefly.
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(durability.rawValue.uppercased())")
            db.add(function: SQLiteGeoIndex.distanceFunction)
            if let statementCounter {
                db.trace(options: .statement) { _ in statementCounter.increment() }
            }
        }
        // The database and its -wal and -shm files are the server's user's alone: a new database
        // is made here empty and 0600, and SQLite gives its companions the same mode
        // (`PrivateFiles.createEmptyFile`); one an earlier version made with the default mode is
        // set to 0600, companions left from its last run too.
        try PrivateFiles.createEmptyFile(atPath: path)
        for file in [path, path + "-wal", path + "-shm"] { try PrivateFiles.restrict(fileAtPath: file) }
        let database = try DatabasePool(path: path, configuration: configuration)
        // One inline connection per core: the event loops, which run the requests, number as many.
        pool = try SQLitePool(database, inlineReaders: min(max(ProcessInfo.processInfo.activeProcessorCount, 2), 8))
        self.registry = registry
        self.indexes = IndexPlan(indexes)
        try SQLiteMigrator.migrate(database, migrations: InternalMigrations.all)
        // Indexes declared by a deploy or the admin API join the configured ones.
        for (schema, list) in try Self.recordedIndexes(database) {
            for fields in list { self.indexes.add(schema: schema, fields: fields) }
        }
        try createConfiguredIndexes(logger: logger)
    }

    /// Indexes configured for fields that already exist; fields that appear later get theirs when
    /// they are added (`evolveSchema`). Tables made by earlier versions get their newest-first
    /// indexes here, and lose the indexes these replace (`IndexPlan.replacedIndexes`); their field
    /// indexes that lack the primary key are made again with it (`IndexPlan.columns`), once.
    private func createConfiguredIndexes(logger: Logger) throws {
        let indexes = self.indexes
        try pool.write { db in
            let names = try String.fetchAll(db, sql: "SELECT name FROM _sm_schemas")
            for name in names {
                guard let primaryKey = try db.primaryKey(name).columns.first else { continue }
                try SQLiteTransaction.createNewestFirstIndexes(schema: name, primaryKey: primaryKey, in: db)
                for fields in IndexPlan.replacedIndexes(asked: indexes.indexes(of: name)) {
                    try db.execute(sql: SQLiteIndexStatements.drop(schema: name, fields: fields))
                }
                for index in try db.indexes(on: name) {
                    guard let (_, fields) = IndexPlan.parse(name: index.name),
                        index.columns != IndexPlan.columns(fields, primaryKey: primaryKey)
                    else { continue }
                    logger.notice("Rebuilding an index so that sorted pages can read it in order", metadata: ["sm.index": "\(index.name)"])
                    try db.execute(sql: SQLiteIndexStatements.drop(schema: name, fields: fields))
                    try db.execute(sql: SQLiteIndexStatements.create(schema: name, fields: fields, primaryKey: primaryKey))
                }
                let columns = Set(try db.columns(in: name).map(\.name))
                for fields in indexes.indexes(of: name) where fields.allSatisfy(columns.contains) {
                    try db.execute(sql: SQLiteIndexStatements.create(schema: name, fields: fields, primaryKey: primaryKey))
                }
            }
        }
    }

    /// On the calling thread, within a limit of SQLite's steps, when the caller's task prefers an
    /// executor of its own (`SQLitePool.read`).
    public func read<T: Sendable>(_ work: @escaping @Sendable (any StorageReader) async throws -> T) async throws -> T {
        try await pool.read(transaction(work))
    }

    /// On the calling thread, within a limit of SQLite's steps, when one of the pool's inline
    /// connections is free (`SQLitePool.readByKey`, which never waits for one): the asynchronous
    /// way hops to a dispatch queue to wait for a connection, back, to the connection's queue,
    /// and back again, and on a read by key those four thread switches cost more than the read.
    /// The body runs in the same kind of snapshot (a deferred transaction).
    public func readByKey<T: Sendable>(_ work: @escaping @Sendable (any StorageReader) async throws -> T) async throws -> T {
        try await pool.readByKey(transaction(work))
    }

    /// A read body as GRDB runs it: the domain's async work on the connection's thread.
    private func transaction<T: Sendable>(_ work: @escaping @Sendable (any StorageReader) async throws -> T) -> @Sendable (Database) throws -> T {
        { [registry, indexes, pool] db in
            let transaction = SQLiteTransaction(db: db, registry: registry, indexes: indexes, longStatements: pool.inline.longStatements)
            return try ConnectionExecutor.run { try await work(transaction) }
        }
    }

    /// Waits for the writer on the caller's executor (see `SQLitePool.read`).
    public func write<T: Sendable>(_ work: @escaping @Sendable (any StorageWriter) async throws -> T) async throws -> T {
        try await pool.write { db in
            let transaction = SQLiteTransaction(db: db, registry: self.registry, indexes: self.indexes)
            return try ConnectionExecutor.run { try await work(transaction) }
        }
    }

    public func loadSchemaDefinitions() async throws -> [SchemaDefinition] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT name, definition FROM _sm_schemas").map { row in
                let name: String = row["name"]
                let text: String = row["definition"]
                guard let json = try? JSONParser.parse(text), let definition = SchemaDefinition(name: name, registryJSON: json)
                else { throw SQLiteStorageError.corruptSchemaDefinition(name) }
                return definition
            }
        }
    }

    /// SQLite's plan for a query (see `SQLiteTransaction.queryPlan`).
    public func queryPlan(_ schema: SchemaDefinition, query: ObjectQuery) async throws -> [String] {
        try await pool.read { db in
            try SQLiteTransaction(db: db, registry: self.registry, indexes: self.indexes).queryPlan(schema, query: query)
        }
    }

    /// Closes the pool: at shutdown, once the server has drained its requests, and in tests
    /// that reopen the same file. Closing waits for reads still under way to give their
    /// connections back, then checkpoints the WAL into the database file: on a thread of its own
    /// (`ThreadOfItsOwn`), since those reads finish on Swift's shared pool.
    public func close() async throws {
        try await ThreadOfItsOwn.run("StackMob.sqlite.close") { [pool] in try pool.close() }
    }

    /// `VACUUM INTO` a new file while serving (`backup(to:)`).
    public var backup: (any StorageBackup)? { self }
}

enum SQLiteStorageError: Error, CustomStringConvertible {
    case corruptSchemaDefinition(String)

    var description: String {
        switch self {
        case .corruptSchemaDefinition(let name): "the stored definition of schema '\(name)' cannot be read"
        }
    }
}
