/// An index every schema table has for the default order, newest first with the primary key
/// breaking ties (`ORDER BY createddate DESC, <primary key> ASC`, PROTOCOL D18): one for every
/// list and one for owner-restricted lists (PROTOCOL §12), whose filter it answers too.
///
/// The primary key is in the index, in the order's directions, so a page of 20 reads 20 index
/// entries in order. On `createddate` alone, SQLite sorted each run of equal `createddate` by
/// primary key ("USE TEMP B-TREE FOR RIGHT PART OF ORDER BY"): a temporary b-tree filled and
/// cleared for every row read, and a whole run read and sorted where objects share a `createddate`,
/// as the objects of one bulk create (a POST of an array) do: pages of a table created in bulk cost
/// SQLite many times as much (docs/benchmarks.md, "Figures behind design choices"). PostgreSQL's
/// incremental sort did the same work.
///
/// The names have their own prefix, not `_sm_idx_`: the app's indexes are read back from those
/// names (SQLite) or columns (PostgreSQL), and these are never the app's. Each engine writes the
/// statement, in its spelling of the order's NULLs (`SQLiteIndexStatements`,
/// `PostgresIndexStatements`).
public struct NewestFirstIndex: Sendable, Equatable {
    public let name: String
    /// Compared for equality before the order: none, or `sm_owner`.
    public let leading: [String]
    public let primaryKey: String

    /// The newest-first indexes of `schema`: on the whole table, and after `sm_owner`.
    public static func all(schema: String, primaryKey: String) -> [NewestFirstIndex] {
        [[], [SchemaDefinition.owner]].map { leading in
            NewestFirstIndex(name: (["_sm_newest_\(schema)"] + leading).joined(separator: "."), leading: leading, primaryKey: primaryKey)
        }
    }
}
