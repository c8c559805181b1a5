import StackMobCore

/// The DDL of the indexes every schema table has or the app asks for (`IndexPlan`,
/// `NewestFirstIndex`), in PostgreSQL's spelling, with names that fit its identifiers. Schema and
/// field names are validated before they get here; the indexes that exist are read back as
/// `PostgresFieldIndex`.
enum PostgresIndexStatements {
    /// The index of `fields`: the fields, then the primary key (`IndexPlan.columns`); and for a
    /// configured index of one field, its count index (`countIndexName`).
    static func create(schema: String, fields: [String], primaryKey: String) -> [String] {
        let list = columns(fields, primaryKey: primaryKey)
            .map { "\(quoted($0.name)) \($0.option == nullsFirst ? "ASC NULLS FIRST" : "ASC")" }.joined(separator: ", ")
        var statements = ["CREATE INDEX IF NOT EXISTS \(quoted(indexName(schema: schema, fields: fields))) ON \(quoted(schema)) (\(list))"]
        if let count = countIndexName(schema: schema, fields: fields, primaryKey: primaryKey) {
            statements.append("CREATE INDEX IF NOT EXISTS \(quoted(count)) ON \(quoted(schema)) (\(quoted(fields[0])))")
        }
        return statements
    }

    /// The name of the second index a configured index of one field has, of the field alone, for
    /// the totals of pages filtered by it; nil for other indexes.
    ///
    /// A total is an index-only scan over the entries the filter admits. With the primary key
    /// after the field, each entry is unique and holds the key, so PostgreSQL's B-tree
    /// deduplication (which stores a value once with the list of its rows) cannot apply: a total
    /// over half of a table of 100,000 objects with 100 values read about nine times the pages
    /// through the ordered index. The planner takes the smaller index for the count and the
    /// ordered one for the page (docs/benchmarks.md, "Figures behind design choices"). Composite
    /// indexes have none: their entries rarely repeat, so it would cost every write for little.
    /// Neither does the implied `lastmoddate` index, whose values rarely repeat and which every
    /// update changes.
    static func countIndexName(schema: String, fields: [String], primaryKey: String) -> String? {
        guard fields.count == 1, fields[0] != primaryKey, !IndexPlan.implied.contains(fields) else { return nil }
        return identifier("_sm_cnt_\(schema).\(fields[0])")
    }

    /// The columns of the index of `fields`, each with its `indoption` flags (`PostgresFieldIndex`).
    ///
    /// Fields sort `ASC NULLS FIRST`, the order `orderClause` asks for ascending (SQLite's), and
    /// read backwards the order it asks for descending (`DESC NULLS LAST`): PostgreSQL reads an
    /// index in order only when its NULLs sort as the query's do. With its default NULL order
    /// (`ASC NULLS LAST`), a page sorted by an indexed field read and sorted every matching row
    /// before its `LIMIT`. The primary key after them sorts `ASC`, as `orderClause` spells the
    /// ties' order, NULLs notwithstanding: PostgreSQL compares the spelling, not the column's
    /// NOT NULL.
    static func columns(_ fields: [String], primaryKey: String) -> [(name: String, option: Int16)] {
        IndexPlan.columns(fields, primaryKey: primaryKey).enumerated().map { position, name in
            (name, position < fields.count ? nullsFirst : 0)
        }
    }

    private static let nullsFirst: Int16 = 2

    /// The index of `fields` and its count index, if it has one.
    static func drop(schema: String, fields: [String], primaryKey: String) -> [String] {
        var names = [indexName(schema: schema, fields: fields)]
        if let count = countIndexName(schema: schema, fields: fields, primaryKey: primaryKey) { names.append(count) }
        return names.map { "DROP INDEX IF EXISTS \(quoted($0))" }
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
