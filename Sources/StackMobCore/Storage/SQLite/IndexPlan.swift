/// The indexes the configuration asks for (`environments.<env>.indexes`), by schema.
///
/// Primary keys, `createddate` and `lastmoddate` are always indexed. Other fields are indexed
/// only when configured: we do not add indexes automatically for fields that queries use,
/// because every index slows every write and grows the file, and which queries matter is the
/// app's knowledge, not the server's; a slow query is fixed by one configuration line.
struct IndexPlan: Sendable {
    private let fieldsBySchema: [String: [String]]

    init(_ fieldsBySchema: [String: [String]]) {
        self.fieldsBySchema = fieldsBySchema
    }

    func fields(of schema: String) -> [String] {
        fieldsBySchema[schema] ?? []
    }

    /// Index names carry the reserved `_sm_` prefix, so they never collide with a schema's table,
    /// and a dot, which no schema or field name contains, so two indexes never share a name.
    static func createStatement(schema: String, field: String) -> String {
        "CREATE INDEX IF NOT EXISTS \"_sm_idx_\(schema).\(field)\" ON \"\(schema)\" (\"\(field)\")"
    }
}
