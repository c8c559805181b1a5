import StackMobCore

/// The DDL of the indexes every schema table has or the app asks for (`IndexPlan`,
/// `NewestFirstIndex`), in PostgreSQL's spelling, with names that fit its identifiers. Schema and
/// field names are validated before they get here.
enum PostgresIndexStatements {
    /// Every column `ASC NULLS FIRST`, the order `orderClause` asks for ascending (SQLite's), and
    /// read backwards the order it asks for descending (`DESC NULLS LAST`): PostgreSQL reads an
    /// index in order only when its NULLs sort as the query's do. With its default NULL order
    /// (`ASC NULLS LAST`), a page sorted by an indexed field read and sorted every matching row
    /// before its `LIMIT`.
    static func create(schema: String, fields: [String]) -> String {
        let columns = fields.map { "\(quoted($0)) \(columnOrder)" }.joined(separator: ", ")
        return "CREATE INDEX IF NOT EXISTS \(quoted(indexName(schema: schema, fields: fields))) ON \(quoted(schema)) (\(columns))"
    }

    static let columnOrder = "ASC NULLS FIRST"

    /// The field indexes of this schema whose columns sort NULLs otherwise than `create` sorts
    /// them (those of earlier versions): each row the index's name. `indoption` holds a flag per
    /// key column, 2 for NULLS FIRST.
    static let indexesToReorder = #"""
        SELECT i.relname::text
        FROM pg_class i
        JOIN pg_index x ON x.indexrelid = i.oid
        WHERE i.relnamespace = current_schema()::regnamespace AND i.relkind = 'i' AND i.relname LIKE '\_sm\_idx\_%'
          AND EXISTS (SELECT 1 FROM unnest(x.indoption::int2[]) AS o(flags) WHERE o.flags & 2 = 0)
        ORDER BY i.relname
        """#

    static func drop(schema: String, fields: [String]) -> String {
        "DROP INDEX IF EXISTS \(quoted(indexName(schema: schema, fields: fields)))"
    }

    /// `DESC NULLS LAST` as `orderClause` spells the default order: PostgreSQL uses an index for
    /// an order only if its NULLs sort the same way, a NOT NULL column notwithstanding.
    static func create(_ index: NewestFirstIndex, schema: String) -> String {
        let columns = index.leading.map(quoted) + ["\(quoted(SchemaDefinition.createdDate)) DESC NULLS LAST", "\(quoted(index.primaryKey)) ASC"]
        return "CREATE INDEX IF NOT EXISTS \(quoted(identifier(index.name))) ON \(quoted(schema)) (\(columns.joined(separator: ", ")))"
    }

    static func indexName(schema: String, fields: [String]) -> String {
        identifier(IndexPlan.name(schema: schema, fields: fields))
    }

    /// `name` when it fits in `maxBytes`, else its start and a hash of the whole name: PostgreSQL
    /// silently cuts longer identifiers to 63 bytes, and two long names with the same start would
    /// then be one index, the second `CREATE INDEX IF NOT EXISTS` doing nothing. The hash is
    /// FNV-1a, the same in every process (Swift's `Hasher` is seeded per process).
    static func identifier(_ name: String, maxBytes: Int = PostgresStatement.maxIdentifierBytes) -> String {
        guard name.utf8.count > maxBytes else { return name }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let suffix = "~" + String(hash, radix: 16)
        var start = ""
        for character in name {
            guard start.utf8.count + character.utf8.count + suffix.utf8.count <= maxBytes else { break }
            start.append(character)
        }
        return start + suffix
    }

    private static func quoted(_ name: String) -> String { "\"\(name)\"" }
}
