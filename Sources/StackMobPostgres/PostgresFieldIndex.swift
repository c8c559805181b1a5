import PostgresNIO
import StackMobCore

/// A field index that exists, as PostgreSQL's catalog holds it: what start-up and deploys read
/// back (the fields it was made for) and what start-up makes again when an earlier version made it
/// otherwise than `PostgresIndexStatements.create` does now.
///
/// A long name is shortened with a hash (`PostgresIndexStatements.identifier`), so the fields are
/// read from the index's columns: all of them, or all but a last primary key that `create` added
/// (`IndexPlan.columns`). The name tells which, since it is made from the fields alone.
struct PostgresFieldIndex: Equatable {
    let name: String
    let table: String
    let fields: [String]
    /// Made by an earlier version: without the primary key after the fields, or with NULLs sorted
    /// otherwise than pages sort them. Pages sorted by its last field then read and sort every
    /// matching row, or every run of ties, before their `LIMIT`.
    let isOutdated: Bool

    /// Every field index of the environment's schema, by table. Every lookup goes through a
    /// catalog index, from this schema's index names: a database with many schemas has a large
    /// catalog, and every instance runs this after each schema change. `indoption` holds a flag per
    /// key column: 1 for DESC, 2 for NULLS FIRST. Its array starts at 0, which postgres-nio does
    /// not decode: it is rebuilt from 1.
    static let catalogQuery = #"""
        SELECT i.relname::text, t.relname::text,
               ARRAY(SELECT a.attname::text
                     FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, position)
                     JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
                     ORDER BY k.position),
               ARRAY(SELECT o.flags FROM unnest(x.indoption::int2[]) WITH ORDINALITY AS o(flags, position) ORDER BY o.position),
               (SELECT a.attname::text
                FROM pg_index p JOIN pg_attribute a ON a.attrelid = p.indrelid AND a.attnum = p.indkey[0]
                WHERE p.indrelid = x.indrelid AND p.indisprimary)
        FROM pg_class i
        JOIN pg_index x ON x.indexrelid = i.oid
        JOIN pg_class t ON t.oid = x.indrelid
        WHERE i.relnamespace = current_schema()::regnamespace AND i.relkind = 'i' AND i.relname LIKE '\_sm\_idx\_%'
        ORDER BY t.relname, i.relname
        """#

    static func all(in rows: [PostgresRow]) throws -> [PostgresFieldIndex] {
        try rows.compactMap { row in
            let (name, table, columns, options, primaryKey) = try row.decode((String, String, [String], [Int16], String?).self)
            return PostgresFieldIndex(name: name, table: table, columns: columns, options: options, primaryKey: primaryKey)
        }
    }

    /// Nil for an index whose name matches neither reading of its columns: not one of ours.
    init?(name: String, table: String, columns: [String], options: [Int16], primaryKey: String?) {
        let fields: [String]
        if PostgresIndexStatements.indexName(schema: table, fields: columns) == name {
            fields = columns
        } else if columns.count > 1, columns.last == primaryKey,
            PostgresIndexStatements.indexName(schema: table, fields: Array(columns.dropLast())) == name
        {
            fields = Array(columns.dropLast())
        } else {
            return nil
        }
        self.name = name
        self.table = table
        self.fields = fields
        let expected = primaryKey.map { PostgresIndexStatements.columns(fields, primaryKey: $0) } ?? []
        isOutdated = expected.map(\.name) != columns || expected.map(\.option) != options
    }
}
