import Synchronization

/// The indexes the configuration asks for (`environments.<env>.indexes`), by schema: each index
/// is one field, or several for a composite index (`["category", "price"]` serves a filter on
/// `category` sorted by `price`).
///
/// Primary keys, `lastmoddate` and the default order (`NewestFirstIndex`) are always indexed.
/// Other fields are indexed only when configured: we do not add indexes automatically for fields
/// that queries use, because every index slows every write and grows the file, and which queries
/// matter is the app's knowledge, not the server's; a slow query is fixed by one configuration
/// line.
///
/// A deploy or the admin API adds indexes while the server runs (docs/operations.md, "Admin API"),
/// so the plan is shared by the engine and its transactions and changes under a lock, once the
/// declaring transaction has committed.
public final class IndexPlan: Sendable {
    private let indexesBySchema: Mutex<[String: [[String]]]>

    public init(_ indexesBySchema: [String: [[String]]]) {
        self.indexesBySchema = Mutex(indexesBySchema)
    }

    /// The field indexes every schema table has, whatever the configuration, besides its
    /// newest-first indexes (`NewestFirstIndex`): time-based sync reads use it.
    public static let implied: [[String]] = [[SchemaDefinition.lastModifiedDate]]

    /// Implied indexes of databases made by earlier versions, which the newest-first indexes
    /// replace: `createddate` alone, `(sm_owner, createddate)`, and before that `sm_owner` alone.
    /// Dropped at start-up once the newest-first indexes exist (`upgradeStatements`), unless the
    /// configuration or a deploy asks for them: the newest-first indexes begin with their columns,
    /// so they serve every query these served.
    public static let replaced: [[String]] = [
        [SchemaDefinition.createdDate], [SchemaDefinition.owner, SchemaDefinition.createdDate], [SchemaDefinition.owner],
    ]

    public func indexes(of schema: String) -> [[String]] {
        indexesBySchema.withLock { $0[schema] ?? [] }
    }

    public var all: [String: [[String]]] {
        indexesBySchema.withLock { $0 }
    }

    public func add(schema: String, fields: [String]) {
        indexesBySchema.withLock { plans in
            if !(plans[schema] ?? []).contains(fields) { plans[schema, default: []].append(fields) }
        }
    }

    /// Index names carry the reserved `_sm_` prefix, so they never collide with a schema's table,
    /// and dots, which no schema or field name contains, so two indexes never share a name.
    /// The statements are the same in SQLite and PostgreSQL; `maxNameBytes` is PostgreSQL's limit
    /// on identifiers (see `identifier`).
    public static func createStatement(schema: String, fields: [String], maxNameBytes: Int = .max) -> String {
        let columns = fields.map { "\"\($0)\"" }.joined(separator: ", ")
        return "CREATE INDEX IF NOT EXISTS \"\(name(schema: schema, fields: fields, maxNameBytes: maxNameBytes))\" ON \"\(schema)\" (\(columns))"
    }

    public static func dropStatement(schema: String, fields: [String], maxNameBytes: Int = .max) -> String {
        "DROP INDEX IF EXISTS \"\(name(schema: schema, fields: fields, maxNameBytes: maxNameBytes))\""
    }

    /// What start-up runs on every schema table after creating its newest-first indexes, for
    /// tables made by earlier versions: the drop of each `replaced` index that `asked` (the
    /// configuration's and the deploys' indexes of that schema) does not list.
    public static func upgradeStatements(schema: String, asked: [[String]], maxNameBytes: Int = .max) -> [String] {
        replaced.filter { !asked.contains($0) }.map { dropStatement(schema: schema, fields: $0, maxNameBytes: maxNameBytes) }
    }

    private static func name(schema: String, fields: [String], maxNameBytes: Int) -> String {
        identifier("_sm_idx_\(schema).\(fields.joined(separator: "."))", maxBytes: maxNameBytes)
    }

    /// `name` when it fits in `maxBytes`, else its start and a hash of the whole name: PostgreSQL
    /// silently cuts longer identifiers to 63 bytes, and two long names with the same start would
    /// then be one index, the second `CREATE INDEX IF NOT EXISTS` doing nothing. The hash is
    /// FNV-1a, the same in every process (Swift's `Hasher` is seeded per process).
    public static func identifier(_ name: String, maxBytes: Int) -> String {
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
}
