import Logging
import PostgresNIO
import StackMobCore
import Synchronization

/// The PostgreSQL storage engine: one environment in one PostgreSQL schema, one table per user
/// schema, shared by any number of server instances.
public final class PostgresStorageEngine: StorageEngine {
    let database: PostgresPool
    private let registry: SchemaRegistry
    private let indexes: IndexPlan
    /// The `_sm_schema_version` this instance's registry reflects.
    private let loadedSchemaVersion = Mutex<Int64>(-1)
    /// Says when the schemas may have changed (`mayHaveSchemaChanges`).
    let listener: PostgresSchemaListener
    /// The listener's generation when the last version check began; nil before the first.
    private let checkedGeneration = Mutex<UInt64?>(nil)
    /// Reads of `_sm_schema_version` (tests count them).
    let versionChecks = Atomic<Int>(0)
    /// `PostgresRowCounts.folding`, until `close()`.
    private let rowCountFolding: Task<Void, Never>
    private let limitedReads = RowsWithinBytes()

    init(database: PostgresPool, listener: PostgresSchemaListener, registry: SchemaRegistry, indexes: [String: [[String]]]) async throws {
        self.database = database
        self.listener = listener
        self.registry = registry
        // What the configuration and deploys asked for, then what exists (another instance's
        // configuration), except the indexes this start-up replaces.
        let asked = IndexPlan(indexes)
        for (schema, list) in try await Self.recordedSettings(database).indexes {
            for fields in list { asked.add(schema: schema, fields: fields) }
        }
        self.indexes = IndexPlan(asked.all)
        rowCountFolding = Task { await PostgresRowCounts.folding(database) }
        do {
            for (schema, list) in try await loadSchemaSettings().indexes {
                for fields in list where !IndexPlan.replaced.contains(fields) || asked.indexes(of: schema).contains(fields) {
                    self.indexes.add(schema: schema, fields: fields)
                }
            }
            try await createConfiguredIndexes(asked: asked)
        } catch {
            rowCountFolding.cancel()
            throw error
        }
    }

    /// Indexes configured for fields that already exist; later fields get theirs when added.
    /// Tables made by earlier versions get the newest-first indexes they lack (`NewestFirstIndex`)
    /// and lose the ones these replace, unless `asked` has them (`IndexPlan.replacedIndexes`);
    /// field indexes whose NULLs sort otherwise than pages ask are made again, once; indexes of one
    /// field get the count index earlier versions did not make (`PostgresIndexStatements.create`);
    /// and tables get their row counts (`PostgresRowCounts`).
    private func createConfiguredIndexes(asked: IndexPlan) async throws {
        let definitions = try await loadSchemaDefinitions()
        guard !definitions.isEmpty else { return }
        try await write { writer in
            let transaction = writer as! PostgresTransaction
            try await transaction.lockSchemas()
            // Field indexes of earlier versions lack the primary key or sort NULLs last; the loop
            // below makes them again as pages read them (`PostgresIndexStatements.create`).
            let existing = try PostgresFieldIndex.all(in: try await transaction.run(PostgresStatement(PostgresFieldIndex.catalogQuery)))
            for index in existing where index.isOutdated {
                self.database.logger.notice("Rebuilding an index so that sorted pages can read it in order", metadata: ["sm.index": "\(index.name)"])
                try await transaction.run(PostgresStatement("DROP INDEX \"\(index.name)\""))
            }
            for definition in definitions {
                try await transaction.createNewestFirstIndexes(schema: definition.name, primaryKey: definition.primaryKey)
                try await PostgresRowCounts.install(on: definition.name, in: transaction)
                for fields in IndexPlan.replacedIndexes(asked: asked.indexes(of: definition.name)) {
                    try await transaction.dropIndex(schema: definition.name, fields: fields, primaryKey: definition.primaryKey)
                }
                for fields in IndexPlan.implied + self.indexes.indexes(of: definition.name)
                where fields.allSatisfy({ definition.type(of: $0) != nil || definition.isSystemField($0) }) {
                    try await transaction.createIndex(schema: definition.name, fields: fields, primaryKey: definition.primaryKey)
                }
            }
        }
    }

    public func read<T: Sendable>(_ work: @escaping @Sendable (any StorageReader) async throws -> T) async throws -> T {
        try await database.readTransaction { connection in
            try await work(transaction(connection, locksRows: false, hooks: CommitHooks()))
        }
    }

    /// A read by key or a page without expansion is usually one statement: both start without a
    /// transaction (`SingleStatementRead`).
    public func readByKey<T: Sendable>(_ work: @escaping @Sendable (any StorageReader) async throws -> T) async throws -> T {
        try await readOneStatement(work)
    }

    /// First without a transaction (`SingleStatementRead`); a read that asks for a second
    /// statement runs again in a read transaction, on the same connection.
    public func readOneStatement<T: Sendable>(_ work: @escaping @Sendable (any StorageReader) async throws -> T) async throws -> T {
        try await database.withConnection { connection in
            let attempt = SingleStatementRead()
            do {
                var reader = transaction(connection, locksRows: false, hooks: CommitHooks())
                reader.singleStatement = attempt
                let value = try await work(reader)
                if !attempt.needsSnapshot { return value }
            } catch where attempt.needsSnapshot {
                // The refusal, or what the body made of it: the read runs again below.
            }
            return try await database.readTransaction(on: connection) { connection in
                try await work(self.transaction(connection, locksRows: false, hooks: CommitHooks()))
            }
        }
    }

    public func write<T: Sendable>(_ work: @escaping @Sendable (any StorageWriter) async throws -> T) async throws -> T {
        var lockedFirst: Set<String> = []
        while true {
            do {
                return try await write(lockingFirst: lockedFirst.sorted(), work)
            } catch let contention as SchemaLockContention where !lockedFirst.contains(contention.table) {
                // Each round locks one more table first, so this ends; a table already locked
                // first cannot be contended.
                database.logger.debug("A write must widen a table another transaction holds; running it again with the table locked first", metadata: ["sm.schema": "\(contention.table)"])
                lockedFirst.insert(contention.table)
            }
        }
    }

    private func write<T: Sendable>(lockingFirst tables: [String], _ work: @escaping @Sendable (any StorageWriter) async throws -> T) async throws -> T {
        let hooks = CommitHooks()
        let value = try await database.writeTransaction { connection in
            // A retried body starts with no hooks of the attempt that rolled back.
            hooks.removeAll()
            let transaction = transaction(connection, locksRows: true, hooks: hooks)
            if !tables.isEmpty { try await transaction.lockSchemasAndTables(tables) }
            return try await work(transaction)
        }
        hooks.runAll()
        return value
    }

    private func transaction(_ connection: PostgresConnection, locksRows: Bool, hooks: CommitHooks) -> PostgresTransaction {
        PostgresTransaction(
            connection: connection, database: database, registry: registry, indexes: indexes, locksRows: locksRows, hooks: hooks,
            limitedReads: limitedReads)
    }

    /// Other instances may share the database.
    public var isShared: Bool { true }
    /// Backed up with PostgreSQL's own tools (pg_dump, point-in-time recovery).
    public var backup: (any StorageBackup)? { nil }

    /// False while the listener is connected and has heard of no schema change since the last
    /// version check began: every change committed before then was in that check, and every
    /// one committed since would have been notified. True while nothing listens.
    ///
    /// A notification reaches this instance a moment after the change committed, so a request
    /// here may start on the registry of a moment before: `Datastore` asks the database again
    /// before it refuses a name the registry lacks (docs/operations.md, "More than one instance").
    public var mayHaveSchemaChanges: Bool {
        guard let generation = listener.generation else { return true }
        return checkedGeneration.withLock { $0 } != generation
    }

    /// Reloads the registry when another instance changed a schema since this one loaded it: one
    /// indexed single-row read, shared by the requests that arrive together
    /// (`Datastore.refreshSchemas`). The new version is recorded last, once the definitions and
    /// the settings are read: a failure on the way leaves it unrecorded, and the next check
    /// reloads again instead of leaving the change half taken in. The listener's generation is
    /// read before the version: a notification that arrives during the check makes the next
    /// request check again.
    public func refreshSchemas() async throws -> StoredSchemaSettings? {
        let generation = listener.generation
        versionChecks.add(1, ordering: .relaxed)
        let version = try await database.execute(PostgresStatement("SELECT version FROM _sm_schema_version")).first?.decode(Int64.self) ?? 0
        guard version > loadedSchemaVersion.withLock({ $0 }) else {
            record(generation)
            return nil
        }
        let (loaded, definitions) = try await readSchemaDefinitions()
        let settings = try await loadSchemaSettings()
        let names = Set(definitions.map(\.name))
        for definition in definitions { registry.publish(definition) }
        for stale in registry.all() where !names.contains(stale.name) { registry.remove(stale.name) }
        for (schema, list) in settings.indexes {
            for fields in list { indexes.add(schema: schema, fields: fields) }
        }
        loadedSchemaVersion.withLock { $0 = max($0, loaded) }
        record(generation)
        return settings
    }

    /// A check that began at `generation` saw every change notified before it. An older one
    /// finishing last leaves an older generation: one check more, never one less.
    private func record(_ generation: UInt64?) {
        guard let generation else { return }
        checkedGeneration.withLock { $0 = generation }
    }

    public func loadSchemaDefinitions() async throws -> [SchemaDefinition] {
        let (version, definitions) = try await readSchemaDefinitions()
        loadedSchemaVersion.withLock { $0 = max($0, version) }
        return definitions
    }

    /// The definitions, and the version read just before them: a change committed in between
    /// makes the next check reload again, rather than leave this instance on definitions older
    /// than the version it records.
    private func readSchemaDefinitions() async throws -> (version: Int64, definitions: [SchemaDefinition]) {
        let version = try await database.execute(PostgresStatement("SELECT version FROM _sm_schema_version")).first?.decode(Int64.self) ?? 0
        let rows = try await database.execute(PostgresStatement("SELECT name, definition FROM _sm_schemas ORDER BY name"))
        let definitions = try rows.map { row in
            let (name, text) = try row.decode((String, String).self)
            guard let definition = SchemaDefinition(name: name, registryJSON: try JSONParser.parse(text)) else {
                throw PostgresStorageError.corruptSchemaDefinition(name)
            }
            return definition
        }
        return (version, definitions)
    }

    /// What deploys and the admin API recorded in `_sm_schema_settings`.
    private static func recordedSettings(_ database: PostgresPool) async throws -> StoredSchemaSettings {
        var settings = StoredSchemaSettings()
        for row in try await database.execute(PostgresStatement("SELECT schema, permissions, indexes FROM _sm_schema_settings")) {
            let (schema, permissionsText, indexesText) = try row.decode((String, String?, String).self)
            if let permissionsText, let permissions = SchemaPermissions(json: try JSONParser.parse(permissionsText)) {
                settings.permissions[schema] = permissions
            }
            for fields in Self.indexList(indexesText) where !(settings.indexes[schema] ?? []).contains(fields) {
                settings.indexes[schema, default: []].append(fields)
            }
        }
        return settings
    }

    public func loadSchemaSettings() async throws -> StoredSchemaSettings {
        var settings = try await Self.recordedSettings(database)
        // The indexes that exist, besides those the settings record.
        for index in try PostgresFieldIndex.all(in: try await database.execute(PostgresStatement(PostgresFieldIndex.catalogQuery)))
        where !IndexPlan.implied.contains(index.fields) && !(settings.indexes[index.table] ?? []).contains(index.fields) {
            settings.indexes[index.table, default: []].append(index.fields)
        }
        return settings
    }

    /// PostgreSQL's plan for a query (tests show which index a query uses).
    public func queryPlan(_ schema: SchemaDefinition, query: ObjectQuery) async throws -> [String] {
        try await database.readTransaction { connection in
            try await self.database.execute("SET LOCAL enable_seqscan = off", on: connection)
            return try await transaction(connection, locksRows: false, hooks: CommitHooks()).queryPlan(schema, query: query)
        }
    }

    public func close() async throws {
        rowCountFolding.cancel()
        await rowCountFolding.value
        listener.close()
        database.close()
    }

    static func indexList(_ text: String) -> [[String]] {
        ((try? JSONParser.parse(text))?.arrayValue ?? []).compactMap { $0.arrayValue?.compactMap(\.stringValue) }
    }
}

enum PostgresStorageError: Error, CustomStringConvertible {
    case corruptSchemaDefinition(String)

    var description: String {
        switch self {
        case .corruptSchemaDefinition(let name): "the stored definition of schema '\(name)' cannot be read"
        }
    }
}
