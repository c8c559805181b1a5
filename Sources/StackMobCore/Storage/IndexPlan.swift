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
    /// Dropped at start-up once the newest-first indexes exist (`replacedIndexes`), unless the
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

    /// The columns of the index of `fields`: the fields, then the primary key unless they hold it.
    /// With the key after the fields, a page sorted by the last field reads the index in its own
    /// order, ties included (`PageOrder`), and stops at its last object.
    public static func columns(_ fields: [String], primaryKey: String) -> [String] {
        fields.contains(primaryKey) ? fields : fields + [primaryKey]
    }

    /// An index's name. It carries the reserved `_sm_` prefix, so it never collides with a
    /// schema's table, and dots, which no schema or field name contains, so two indexes never
    /// share a name. An engine whose identifiers are shorter shortens it its own way (PostgreSQL's
    /// `PostgresIndexStatements.identifier`).
    public static func name(schema: String, fields: [String]) -> String {
        "\(namePrefix)\(schema).\(fields.joined(separator: "."))"
    }

    public static let namePrefix = "_sm_idx_"

    /// The schema and fields an index's `name` was made from; nil for another name.
    public static func parse(name: String) -> (schema: String, fields: [String])? {
        guard name.hasPrefix(namePrefix) else { return nil }
        let parts = name.dropFirst(namePrefix.count).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, !parts.contains(where: \.isEmpty) else { return nil }
        return (parts[0], Array(parts.dropFirst()))
    }

    /// What start-up drops on every schema table after creating its newest-first indexes, for
    /// tables made by earlier versions: each `replaced` index that `asked` (the configuration's
    /// and the deploys' indexes of that schema) does not list.
    public static func replacedIndexes(asked: [[String]]) -> [[String]] {
        replaced.filter { !asked.contains($0) }
    }
}
