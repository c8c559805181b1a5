import Foundation
import GRDB
import StackMobCore

/// `deploy --drop` (docs/operations.md, "From development to production"): the only way a field or
/// schema is ever removed. The caller has made a copy of the database first
/// (`SQLiteStorageEngine.backup`). Binary fields' files are left where they are.
extension SQLiteTransaction {
    func dropField(_ schema: SchemaDefinition, field: String) throws -> SchemaDefinition {
        let table = "\"\(schema.name)\""
        let indexes = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name LIKE '\\_sm\\_idx\\_%' ESCAPE '\\'",
            arguments: [schema.name])
        for name in indexes where name.split(separator: ".").dropFirst().contains(Substring(field)) {
            try db.execute(sql: "DROP INDEX \"\(name)\"")
        }
        if schema.type(of: field) == .geopoint {
            for trigger in ["insert", "update", "delete"] {
                try db.execute(sql: "DROP TRIGGER IF EXISTS \"_sm_geo_\(schema.name).\(trigger)\"")
            }
            try db.execute(sql: "DROP TABLE IF EXISTS \(SQLiteGeoIndex.table(schema.name))")
        }
        try db.execute(sql: "ALTER TABLE \(table) DROP COLUMN \"\(field)\"")
        let next = schema.removing(field)
        try db.execute(sql: "UPDATE _sm_schemas SET definition = ? WHERE name = ?", arguments: [JSONWriter.string(next.registryJSON), schema.name])
        if let stored = try String.fetchOne(db, sql: "SELECT indexes FROM _sm_schema_settings WHERE schema = ?", arguments: [schema.name]) {
            let kept = SQLiteStorageEngine.indexList(stored).filter { !$0.contains(field) }
            try db.execute(
                sql: "UPDATE _sm_schema_settings SET indexes = ? WHERE schema = ?",
                arguments: [JSONWriter.string(.array(kept.map { .array($0.map(JSONValue.string)) })), schema.name])
        }
        let registry = self.registry
        db.afterNextTransaction(onCommit: { _ in registry.publish(next) })
        return next
    }

    func dropSchema(_ schema: SchemaDefinition) throws {
        try db.execute(sql: "DROP TABLE \"\(schema.name)\"")
        try db.execute(sql: "DROP TABLE IF EXISTS \(SQLiteGeoIndex.table(schema.name))")
        try db.execute(sql: "DELETE FROM _sm_schemas WHERE name = ?", arguments: [schema.name])
        try db.execute(sql: "DELETE FROM _sm_schema_settings WHERE schema = ?", arguments: [schema.name])
        let registry = self.registry
        db.afterNextTransaction(onCommit: { _ in registry.remove(schema.name) })
    }
}

extension SQLiteStorageEngine {
    /// A consistent copy of the database at `path` (`VACUUM INTO`), taken before a destructive
    /// deploy so that nothing is ever lost silently. The copy is `0600`, as the database is
    /// (`PrivateFiles.createEmptyFile`: `VACUUM INTO` fills an empty file and keeps its mode).
    public func backup(to path: String) async throws {
        let created = try PrivateFiles.createEmptyFile(atPath: path)
        do {
            try await pool.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM INTO ?", arguments: [path])
            }
        } catch {
            if created { unlink(path) }
            throw error
        }
    }
}
