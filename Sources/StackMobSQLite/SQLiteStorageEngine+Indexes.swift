import GRDB
import StackMobCore

/// Schema settings in SQLite (config/README.md, "Schemas"): the indexes that exist, read back from
/// their names (`IndexPlan`), and what deploys and the admin API recorded in `_sm_schema_settings`.
extension SQLiteStorageEngine {
    /// Every index the app asked for that exists, by schema; the ones every table has
    /// (`IndexPlan.implied`) are left out.
    public func storedIndexes() async throws -> [String: [[String]]] {
        try await pool.read { db in try Self.existingIndexes(db) }
    }

    public func loadSchemaSettings() async throws -> StoredSchemaSettings {
        try await pool.read { db in
            var settings = StoredSchemaSettings(indexes: try Self.existingIndexes(db))
            for row in try Row.fetchAll(db, sql: "SELECT schema, permissions, indexes FROM _sm_schema_settings") {
                let schema: String = row["schema"]
                if let text: String = row["permissions"], let permissions = SchemaPermissions(json: try JSONParser.parse(text)) {
                    settings.permissions[schema] = permissions
                }
                let indexesText: String = row["indexes"]
                for fields in Self.indexList(indexesText) where !(settings.indexes[schema] ?? []).contains(fields) {
                    settings.indexes[schema, default: []].append(fields)
                }
            }
            return settings
        }
    }

    static func recordedIndexes(_ pool: DatabasePool) throws -> [String: [[String]]] {
        try pool.read { db in
            var indexes: [String: [[String]]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT schema, indexes FROM _sm_schema_settings") {
                indexes[row["schema"]] = indexList(row["indexes"])
            }
            return indexes
        }
    }

    static func indexList(_ text: String) -> [[String]] {
        ((try? JSONParser.parse(text))?.arrayValue ?? []).compactMap { $0.arrayValue?.compactMap(\.stringValue) }
    }

    static func existingIndexes(_ db: Database) throws -> [String: [[String]]] {
        let names = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '\\_sm\\_idx\\_%' ESCAPE '\\'")
        var indexes: [String: [[String]]] = [:]
        for name in names.sorted() {
            guard let (schema, fields) = IndexPlan.parse(name: name), !IndexPlan.implied.contains(fields) else { continue }
            indexes[schema, default: []].append(fields)
        }
        return indexes
    }
}

extension SQLiteTransaction {
    func declareIndex(schema: String, fields: [String]) throws {
        let stored = try String.fetchOne(db, sql: "SELECT indexes FROM _sm_schema_settings WHERE schema = ?", arguments: [schema])
        var list = stored.map(SQLiteStorageEngine.indexList) ?? []
        if !list.contains(fields) { list.append(fields) }
        let json = JSONWriter.string(.array(list.map { .array($0.map(JSONValue.string)) }))
        try db.execute(
            sql: "INSERT INTO _sm_schema_settings (schema, indexes) VALUES (?, ?) ON CONFLICT(schema) DO UPDATE SET indexes = excluded.indexes",
            arguments: [schema, json])
        if try db.tableExists(schema), let primaryKey = try db.primaryKey(schema).columns.first {
            let columns = Set(try db.columns(in: schema).map(\.name))
            if fields.allSatisfy(columns.contains) {
                try db.execute(sql: SQLiteIndexStatements.create(schema: schema, fields: fields, primaryKey: primaryKey))
            }
        }
        let plan = indexes
        db.afterNextTransaction(onCommit: { _ in plan.add(schema: schema, fields: fields) })
    }

    func recordPermissions(schema: String, _ permissions: SchemaPermissions, onCommit: @escaping @Sendable () -> Void) throws {
        try db.execute(
            sql: "INSERT INTO _sm_schema_settings (schema, permissions) VALUES (?, ?) ON CONFLICT(schema) DO UPDATE SET permissions = excluded.permissions",
            arguments: [schema, JSONWriter.string(permissions.json)])
        db.afterNextTransaction(onCommit: { _ in onCommit() })
    }
}
