import StackMobCore

/// The DDL of the indexes every schema table has or the app asks for (`IndexPlan`,
/// `NewestFirstIndex`), in SQLite's spelling. Names and columns are quoted; schema and field
/// names are validated before they get here.
enum SQLiteIndexStatements {
    /// The fields, then the primary key (`IndexPlan.columns`), in SQLite's default order: NULLs
    /// first ascending, last read backwards, as pages sort them.
    static func create(schema: String, fields: [String], primaryKey: String) -> String {
        let columns = IndexPlan.columns(fields, primaryKey: primaryKey).map(quoted).joined(separator: ", ")
        return "CREATE INDEX IF NOT EXISTS \(quoted(IndexPlan.name(schema: schema, fields: fields))) ON \(quoted(schema)) (\(columns))"
    }

    static func drop(schema: String, fields: [String]) -> String {
        "DROP INDEX IF EXISTS \(quoted(IndexPlan.name(schema: schema, fields: fields)))"
    }

    /// SQLite's default order puts NULLs last when descending, as the index must.
    static func create(_ index: NewestFirstIndex, schema: String) -> String {
        let columns = index.leading.map(quoted) + ["\(quoted(SchemaDefinition.createdDate)) DESC", "\(quoted(index.primaryKey)) ASC"]
        return "CREATE INDEX IF NOT EXISTS \(quoted(index.name)) ON \(quoted(schema)) (\(columns.joined(separator: ", ")))"
    }

    private static func quoted(_ name: String) -> String { "\"\(name)\"" }
}
