import Synchronization

/// The indexes the configuration asks for (`environments.<env>.indexes`), by schema: each index
/// is one field, or several for a composite index (`["category", "price"]` serves a filter on
/// `category` sorted by `price`).
///
/// Primary keys, `createddate` and `lastmoddate` are always indexed. Other fields are indexed
/// only when configured: we do not add indexes automatically for fields that queries use,
/// because every index slows every write and grows the file, and which queries matter is the
/// app's knowledge, not the server's; a slow query is fixed by one configuration line.
///
/// A deploy or the admin API adds indexes while the server runs (issue 15), so the plan is shared
/// by the engine and its transactions and changes under a lock, once the declaring transaction
/// has committed.
public final class IndexPlan: Sendable {
    private let indexesBySchema: Mutex<[String: [[String]]]>

    public init(_ indexesBySchema: [String: [[String]]]) {
        self.indexesBySchema = Mutex(indexesBySchema)
    }

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
    /// The statement is the same in SQLite and PostgreSQL.
    public static func createStatement(schema: String, fields: [String]) -> String {
        let name = "_sm_idx_\(schema).\(fields.joined(separator: "."))"
        let columns = fields.map { "\"\($0)\"" }.joined(separator: ", ")
        return "CREATE INDEX IF NOT EXISTS \"\(name)\" ON \"\(schema)\" (\(columns))"
    }
}
