/// What one snapshot of the database can answer: a `StorageEngine.read`'s view.
public protocol StorageReader {
    /// The stored object with every non-null column, password hashes included.
    func fetchObject(_ schema: SchemaDefinition, id: String) async throws -> JSONObject?
    /// The matching objects in the query's order and window, compiled into one SQL statement.
    func fetchObjects(_ schema: SchemaDefinition, query: ObjectQuery) async throws -> ObjectPage
    /// The primary keys of the objects `fetchObjects(_:query:)` would return, in its order (the
    /// query's total and a `near` condition's distance aside): how a long answer is read in
    /// batches without holding its objects (`Datastore.queryInBatches`).
    func fetchPrimaryKeys(_ schema: SchemaDefinition, query: ObjectQuery) async throws -> [String]
    /// The stored objects among `ids` (distinct), in no particular order, in ONE statement
    /// whatever the number of ids (how expansion loads a schema's related objects, PROTOCOL
    /// §5.5). With `rows`, only the objects it admits (schema permissions, §12), in the same
    /// statement. With `byteLimit`, no row is read after the one whose values take the rows read
    /// past it (as `ObjectQuery.byteLimit`), and the page counts the bytes read.
    func fetchObjects(_ schema: SchemaDefinition, ids: [String], admitting rows: RowFilter?, byteLimit: Int?) async throws -> ObjectPage
    /// The stored objects among `ids` (distinct) that `rows` admits, in the order of `ids`,
    /// reading no row after the one whose values take the rows read past `byteLimit` bytes (as
    /// `ObjectQuery.byteLimit`): how the rest of a long answer is read a batch at a time
    /// (`Datastore.RemainingObjects`). When the page ended at the limit, the ids after its last
    /// object were not read; the ids before it that returned nothing are not stored (or not
    /// admitted).
    func fetchObjects(_ schema: SchemaDefinition, orderedIDs ids: [String], admitting rows: RowFilter?, byteLimit: Int) async throws -> ObjectPage
}

extension StorageReader {
    public func fetchObjects(_ schema: SchemaDefinition, ids: [String]) async throws -> [JSONObject] {
        try await fetchObjects(schema, ids: ids, admitting: nil, byteLimit: nil).objects
    }
}
