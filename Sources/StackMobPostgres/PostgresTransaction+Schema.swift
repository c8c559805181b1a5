import PostgresNIO
import StackMobCore

/// Tables, columns, indexes and schema settings. While other instances serve the same database,
/// schema changes are serialised by a transaction-scoped advisory lock, and each bumps
/// `_sm_schema_version` and notifies the instances' listeners (delivered at commit), so that
/// they reload the registry before their next request (`PostgresStorageEngine.refreshSchemas`,
/// `PostgresSchemaListener`).
extension PostgresTransaction {
    /// The advisory lock every schema change of this environment takes (its PostgreSQL schema
    /// is the connection's `current_schema()`).
    func lockSchemas() async throws {
        try await run(PostgresStatement("SELECT pg_advisory_xact_lock(hashtext('stackmob schemas ' || current_schema()))"))
    }

    /// The channel is the environment's PostgreSQL schema, which each listener names
    /// (`PostgresStorageProvider.open`).
    func bumpSchemaVersion() async throws {
        try await run(PostgresStatement("UPDATE _sm_schema_version SET version = version + 1"))
        try await run(PostgresStatement("SELECT pg_notify(current_schema(), '')"))
    }

    /// Whether this transaction has the schema lock, without waiting for it.
    private func tryLockSchemas() async throws -> Bool {
        let statement = PostgresStatement("SELECT pg_try_advisory_xact_lock(hashtext('stackmob schemas ' || current_schema()))")
        return try await run(statement).first?.decode(Bool.self) == true
    }

    /// Locks `table`, if it exists, against every other use until the commit. Without `waiting`
    /// it only tries, and says whether it has the lock; a failed try leaves the transaction to be
    /// rolled back.
    private func lockTable(_ table: String, waiting: Bool) async throws -> Bool {
        var exists = PostgresStatement("SELECT to_regclass(")
        exists.append(exists.bind(quote(table)) + ") IS NOT NULL")
        guard try await run(exists).first?.decode(Bool.self) == true else { return true }
        do {
            try await run(PostgresStatement("LOCK TABLE \(quote(table)) IN ACCESS EXCLUSIVE MODE" + (waiting ? "" : " NOWAIT")))
            return true
        } catch where !waiting && PostgresErrors.sqlState(error) == PostgresErrors.lockNotAvailable {
            return false
        }
    }

    /// The start of a write run again after `SchemaLockContention`: the schema lock, then each
    /// named table, in a fixed order, before any row is locked.
    func lockSchemasAndTables(_ tables: [String]) async throws {
        try await lockSchemas()
        for table in tables.sorted() {
            _ = try await lockTable(table, waiting: true)
        }
    }

    /// Creates or widens `next`'s table.
    ///
    /// A write usually gets here after it has locked rows (`FOR UPDATE`, `UPDATE`), and other
    /// writes queued on those rows hold a lock on the table that `ALTER TABLE` would wait for: a
    /// deadlock, which PostgreSQL finds only after its `deadlock_timeout` (1 s), and which under
    /// load outlasts clients' patience. So the locks a schema change needs are only tried here;
    /// when one is taken, the write is rolled back and run again with them taken first, while it
    /// holds nothing else (`SchemaLockContention`, `PostgresStorageEngine.write`).
    func evolveSchema(from previous: SchemaDefinition?, to next: SchemaDefinition) async throws {
        guard try await tryLockSchemas(), try await lockTable(next.name, waiting: false) else {
            throw SchemaLockContention(table: next.name)
        }
        // Under the lock, what is stored is what every instance will see. A field this instance
        // did not know of yet, which another one has just created with another type, is the
        // type clash a single instance would have found: the write is refused (400), its value
        // is never stored into a column of the other type.
        let stored = try await storedDefinition(next.name)
        for (field, type) in next.fields.sorted(by: { $0.key < $1.key }) where previous?.type(of: field) == nil {
            if let existing = stored?.type(of: field), existing != type { throw DatastoreError.incompatibleType(field: field) }
        }
        // Another instance may have created the table or added columns since this one last
        // loaded the registry: IF NOT EXISTS makes each step a no-op then, and the stored
        // definition is merged rather than overwritten.
        var columns = [
            "\(quote(next.primaryKey)) TEXT COLLATE \"C\" NOT NULL PRIMARY KEY",
            "\(quote(SchemaDefinition.createdDate)) BIGINT NOT NULL",
            "\(quote(SchemaDefinition.lastModifiedDate)) BIGINT NOT NULL",
            "\(quote(SchemaDefinition.owner)) TEXT COLLATE \"C\"",
        ]
        for (field, type) in next.fields.sorted(by: { $0.key < $1.key }) {
            columns.append("\(quote(field)) \(PostgresValueMapping.columnType(type))")
        }
        try await run(PostgresStatement("CREATE TABLE IF NOT EXISTS \(quote(next.name)) (\(columns.joined(separator: ", ")))"))
        for fields in IndexPlan.implied {
            try await createIndex(schema: next.name, fields: fields, primaryKey: next.primaryKey)
        }
        try await createNewestFirstIndexes(schema: next.name, primaryKey: next.primaryKey)
        try await PostgresRowCounts.install(on: next.name, in: self)
        for (field, type) in next.fields.sorted(by: { $0.key < $1.key }) where previous?.type(of: field) == nil {
            try await run(
                PostgresStatement("ALTER TABLE \(quote(next.name)) ADD COLUMN IF NOT EXISTS \(quote(field)) \(PostgresValueMapping.columnType(type))"))
            if type == .geopoint {
                try await run(PostgresStatement(PostgresGeoIndex.createStatement(schema: next.name, field: field)))
            }
        }
        for fields in indexes.indexes(of: next.name) where fields.allSatisfy({ next.type(of: $0) != nil || next.isSystemField($0) }) {
            try await createIndex(schema: next.name, fields: fields, primaryKey: next.primaryKey)
        }
        let merged = stored.map { stored in
            SchemaDefinition(name: next.name, primaryKey: next.primaryKey, fields: stored.fields.merging(next.fields) { _, new in new })
        } ?? next
        var statement = PostgresStatement("INSERT INTO _sm_schemas (name, definition) VALUES (")
        statement.append(
            "\(statement.bind(next.name)), \(statement.bind(JSONWriter.string(merged.registryJSON)))) "
                + "ON CONFLICT (name) DO UPDATE SET definition = excluded.definition")
        try await run(statement)
        try await bumpSchemaVersion()
        let registry = self.registry
        hooks.append { registry.publish(merged) }
    }

    /// The index of `fields` and, for a configured index of one field, its count index
    /// (`PostgresIndexStatements.create`).
    func createIndex(schema: String, fields: [String], primaryKey: String) async throws {
        for statement in PostgresIndexStatements.create(schema: schema, fields: fields, primaryKey: primaryKey) {
            try await run(PostgresStatement(statement))
        }
    }

    /// The index of `fields` and its count index, if it has one.
    func dropIndex(schema: String, fields: [String], primaryKey: String) async throws {
        for statement in PostgresIndexStatements.drop(schema: schema, fields: fields, primaryKey: primaryKey) {
            try await run(PostgresStatement(statement))
        }
    }

    func createNewestFirstIndexes(schema: String, primaryKey: String) async throws {
        for index in NewestFirstIndex.all(schema: schema, primaryKey: primaryKey) {
            try await run(PostgresStatement(PostgresIndexStatements.create(index, schema: schema)))
        }
    }

    func storedDefinition(_ name: String) async throws -> SchemaDefinition? {
        var statement = PostgresStatement("SELECT definition FROM _sm_schemas WHERE name = ")
        statement.append(statement.bind(name))
        guard let text = try await run(statement).first?.decode(String.self) else { return nil }
        return SchemaDefinition(name: name, registryJSON: try JSONParser.parse(text))
    }

    func declareIndex(schema: String, fields: [String]) async throws {
        try await lockSchemas()
        var read = PostgresStatement("SELECT indexes FROM _sm_schema_settings WHERE schema = ")
        read.append(read.bind(schema))
        var list = try await run(read).first.map { PostgresStorageEngine.indexList(try $0.decode(String.self)) } ?? []
        if !list.contains(fields) { list.append(fields) }
        var write = PostgresStatement("INSERT INTO _sm_schema_settings (schema, indexes) VALUES (")
        write.append(
            "\(write.bind(schema)), \(write.bind(JSONWriter.string(.array(list.map { .array($0.map(JSONValue.string)) }))))) "
                + "ON CONFLICT (schema) DO UPDATE SET indexes = excluded.indexes")
        try await run(write)
        if let definition = try await storedDefinition(schema),
            fields.allSatisfy({ definition.type(of: $0) != nil || definition.isSystemField($0) })
        {
            try await createIndex(schema: schema, fields: fields, primaryKey: definition.primaryKey)
        }
        try await bumpSchemaVersion()
        let plan = indexes
        hooks.append { plan.add(schema: schema, fields: fields) }
    }

    func recordPermissions(schema: String, _ permissions: SchemaPermissions, onCommit: @escaping @Sendable () -> Void) async throws {
        var statement = PostgresStatement("INSERT INTO _sm_schema_settings (schema, permissions) VALUES (")
        statement.append(
            "\(statement.bind(schema)), \(statement.bind(JSONWriter.string(permissions.json)))) "
                + "ON CONFLICT (schema) DO UPDATE SET permissions = excluded.permissions")
        try await run(statement)
        try await bumpSchemaVersion()
        hooks.append(onCommit)
    }

    func dropField(_ schema: SchemaDefinition, field: String) async throws -> SchemaDefinition {
        try await lockSchemas()
        // Dropping the column drops every index on it, the geo index included.
        try await run(PostgresStatement("ALTER TABLE \(quote(schema.name)) DROP COLUMN IF EXISTS \(quote(field))"))
        let next = schema.removing(field)
        var update = PostgresStatement("UPDATE _sm_schemas SET definition = ")
        update.append("\(update.bind(JSONWriter.string(next.registryJSON))) WHERE name = \(update.bind(schema.name))")
        try await run(update)
        var read = PostgresStatement("SELECT indexes FROM _sm_schema_settings WHERE schema = ")
        read.append(read.bind(schema.name))
        if let stored = try await run(read).first.map({ try $0.decode(String.self) }) {
            let kept = PostgresStorageEngine.indexList(stored).filter { !$0.contains(field) }
            var write = PostgresStatement("UPDATE _sm_schema_settings SET indexes = ")
            write.append(
                "\(write.bind(JSONWriter.string(.array(kept.map { .array($0.map(JSONValue.string)) })))) WHERE schema = \(write.bind(schema.name))")
            try await run(write)
        }
        try await bumpSchemaVersion()
        let registry = self.registry
        hooks.append { registry.publish(next) }
        return next
    }

    func dropSchema(_ schema: SchemaDefinition) async throws {
        try await lockSchemas()
        try await PostgresRowCounts.forget(schema.name, in: self)
        try await run(PostgresStatement("DROP TABLE IF EXISTS \(quote(schema.name))"))
        var statement = PostgresStatement("DELETE FROM _sm_schemas WHERE name = ")
        statement.append(statement.bind(schema.name))
        try await run(statement)
        var settings = PostgresStatement("DELETE FROM _sm_schema_settings WHERE schema = ")
        settings.append(settings.bind(schema.name))
        try await run(settings)
        try await bumpSchemaVersion()
        let registry = self.registry
        hooks.append { registry.remove(schema.name) }
    }
}
