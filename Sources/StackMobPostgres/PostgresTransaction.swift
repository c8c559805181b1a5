import PostgresNIO
import StackMobCore
import Synchronization

/// One read snapshot or write transaction on a PostgreSQL connection: the same statements as
/// `SQLiteTransaction`, in PostgreSQL's dialect.
///
/// Unchecked Sendable: it lives only inside the body it was made for, which uses it from one
/// task at a time.
struct PostgresTransaction: StorageWriter, @unchecked Sendable {
    let connection: PostgresConnection
    let database: PostgresPool
    let registry: SchemaRegistry
    let indexes: IndexPlan
    /// In a write, objects read are locked (`FOR UPDATE`) until the commit, so that a
    /// read-modify-write (`[inc]` counters, appends) from another instance waits for this one
    /// and then sees its result: counters stay exact.
    let locksRows: Bool
    let hooks: CommitHooks
    /// Which schemas' limited reads PostgreSQL cuts at their limit (`run(_:byteLimit:schema:)`).
    let limitedReads: RowsWithinBytes
    /// Set when the read runs outside a transaction block, one statement at most.
    var singleStatement: SingleStatementRead?

    static let totalColumn = "_sm_total"
    static let distanceColumn = "_sm_distance"

    @discardableResult
    func run(_ statement: PostgresStatement) async throws -> [PostgresRow] {
        try singleStatement?.admit()
        return try await database.execute(statement, on: connection)
    }

    /// `run` of a `SELECT` of `schema`'s rows, keeping rows only up to `byteLimit` bytes when one
    /// is set (`ObjectQuery.byteLimit`). Once a read of the schema has passed its limit,
    /// PostgreSQL sends few rows past it (`RowsWithinBytes`).
    func run(_ statement: PostgresStatement, byteLimit: Int?, schema: SchemaDefinition) async throws -> (
        rows: [PostgresRandomAccessRow], endedAtByteLimit: Bool, bytes: Int
    ) {
        guard let byteLimit else { return (try await run(statement).map(PostgresRandomAccessRow.init), false, 0) }
        try singleStatement?.admit()
        let limited = limitedReads.statement(statement, byteLimit: byteLimit, schema: schema)
        let read = try await database.execute(limited, on: connection, byteLimit: byteLimit)
        if read.endedAtByteLimit { limitedReads.passed(schema) }
        return read
    }

    // MARK: - Reading

    func fetchObject(_ schema: SchemaDefinition, id: String) async throws -> JSONObject? {
        var statement = PostgresStatement("SELECT * FROM \(quote(schema.name)) WHERE \(quote(schema.primaryKey)) = ")
        statement.append(statement.bind(id))
        if locksRows { statement.append(" FOR UPDATE") }
        return try await PostgresRowDecoder.objects(run(statement), schema: schema).first
    }

    func fetchObjects(_ schema: SchemaDefinition, ids: [String], admitting rows: RowFilter?, byteLimit: Int?) async throws -> ObjectPage {
        guard !ids.isEmpty else { return ObjectPage(objects: [], total: nil) }
        // One parameter, whatever the number of ids: one statement per schema an expansion reads.
        // A text array, whose length the planner sees, rather than a JSON array unpacked by a
        // set-returning function: that statement took twice as long to plan and run
        // (docs/benchmarks.md, "Figures behind design choices").
        var statement = PostgresStatement("SELECT * FROM \(quote(schema.name)) WHERE \(quote(schema.primaryKey)) = ANY(")
        statement.append(statement.bind(ids) + ")")
        if let rows {
            statement.append(" AND " + PostgresFilterCompiler(schema: schema).compile(rows, table: schema.name, into: &statement))
        }
        guard byteLimit != nil else { return ObjectPage(objects: try await PostgresRowDecoder.objects(run(statement), schema: schema), total: nil) }
        let (found, ended, bytes) = try await run(statement, byteLimit: byteLimit, schema: schema)
        return ObjectPage(objects: try PostgresRowDecoder.objects(found, schema: schema), total: nil, endedAtByteLimit: ended, storedBytes: bytes)
    }

    func fetchObjects(_ schema: SchemaDefinition, orderedIDs ids: [String], admitting rows: RowFilter?, byteLimit: Int) async throws -> ObjectPage {
        guard !ids.isEmpty else { return ObjectPage(objects: [], total: nil) }
        // The ids' positions order the rows, which PostgreSQL sorts before sending any: the
        // rows past the byte limit are then the last ids', not any.
        let table = quote(schema.name)
        var statement = PostgresStatement("SELECT \(table).* FROM unnest(")
        statement.append(statement.bind(ids) + ") WITH ORDINALITY AS _sm_ids(_sm_key, _sm_ordinal) JOIN \(table) ON \(table).\(quote(schema.primaryKey)) = _sm_ids._sm_key")
        if let rows {
            statement.append(" WHERE " + PostgresFilterCompiler(schema: schema).compile(rows, table: schema.name, into: &statement))
        }
        statement.append(" ORDER BY _sm_ids._sm_ordinal")
        let (found, ended, bytes) = try await run(statement, byteLimit: byteLimit, schema: schema)
        return ObjectPage(objects: try PostgresRowDecoder.objects(found, schema: schema), total: nil, endedAtByteLimit: ended, storedBytes: bytes)
    }

    func fetchObjects(_ schema: SchemaDefinition, query: ObjectQuery) async throws -> ObjectPage {
        let near = query.filter?.nearCondition
        let statement = selectStatement(schema, query: query, near: near)
        var total: Int?
        let (rows, ended, bytes) = try await run(statement, byteLimit: query.byteLimit, schema: schema)
        guard let first = rows.first else {
            // An empty page still has a total (a page past the end): count alone.
            return ObjectPage(objects: [], total: query.countsTotal ? try await count(schema, query: query) : nil)
        }
        let decoder = PostgresRowDecoder(columnsOf: first, schema: schema, skipping: [Self.totalColumn, Self.distanceColumn])
        let objects = try rows.map { row in
            var distance: Double?
            var object = try decoder.object(from: row) { cell in
                switch cell.columnName {
                case Self.totalColumn: total = Int(try cell.decode(Int64.self))
                // NULL for an object without the point (a `near` inside an OR group).
                case Self.distanceColumn: distance = try cell.decode(Double?.self)
                default: break
                }
            }
            if let near, let distance { object.giveDistance(distance, toPointIn: near.field) }
            return object
        }
        return ObjectPage(objects: objects, total: total, endedAtByteLimit: ended, storedBytes: bytes)
    }

    func fetchPrimaryKeys(_ schema: SchemaDefinition, query: ObjectQuery) async throws -> [String] {
        var keysOnly = query
        keysOnly.countsTotal = false
        let statement = selectStatement(schema, query: keysOnly, near: query.filter?.nearCondition, columns: quote(schema.primaryKey))
        // Taken as the rows arrive: the keys of a long list may be a million, and its rows, held
        // whole, took several times what its keys take.
        let keys = Mutex<[String]>([])
        try singleStatement?.admit()
        try await database.execute(statement, on: connection) { row in
            guard let bytes = row.first?.bytes else { throw MissingKey() }
            let key = String(buffer: bytes)
            keys.withLock { $0.append(key) }
        }
        return keys.withLock { $0 }
    }

    /// A primary key read as NULL: never stored so, as the column is the table's key.
    private struct MissingKey: Error {}

    private func count(_ schema: SchemaDefinition, query: ObjectQuery) async throws -> Int {
        var statement = PostgresStatement("SELECT ")
        statement.append(totalExpression(schema, filter: query.filter, into: &statement))
        return Int(try await run(statement).first?.decode(Int64.self) ?? 0)
    }

    /// The number of rows `filter` admits: without one, the table's kept count
    /// (`PostgresRowCounts`).
    private func totalExpression(_ schema: SchemaDefinition, filter: TypedFilter?, into statement: inout PostgresStatement) -> String {
        guard let filter else { return PostgresRowCounts.total(of: schema.name, into: &statement) }
        let condition = PostgresFilterCompiler(schema: schema).compile(filter, into: &statement)
        return "(SELECT COUNT(*) FROM \(quote(schema.name)) WHERE \(condition))"
    }

    /// PostgreSQL's plan for a query, one line per step (tests show the geo index is used).
    func queryPlan(_ schema: SchemaDefinition, query: ObjectQuery) async throws -> [String] {
        var statement = selectStatement(schema, query: query, near: query.filter?.nearCondition)
        statement.sql = "EXPLAIN " + statement.sql
        return try await run(statement).map { try $0.decode(String.self) }
    }

    /// One statement for the page: filter, order, window and (when asked) the total, in the same
    /// snapshot. The total is a scalar subquery over the same filter, which PostgreSQL runs once
    /// (an InitPlan) and may answer from an index alone, or without a filter the table's kept
    /// count (`PostgresRowCounts`); a window function (`COUNT(*) OVER ()`)
    /// would instead make it read and hold every matching row, whole, before the `LIMIT`, so that
    /// a page of 20 cost as much as the whole list (docs/benchmarks.md, "PostgreSQL's totals").
    private func selectStatement(
        _ schema: SchemaDefinition, query: ObjectQuery, near: (field: String, origin: GeoPoint)?, columns: String = "*"
    ) -> PostgresStatement {
        var statement = PostgresStatement("SELECT \(columns)")
        if let near {
            let column = quote(near.field)
            statement.append(
                ", sm_distance(\(statement.bind(near.origin.lat)), \(statement.bind(near.origin.lon)), "
                    + "\(PostgresGeoIndex.latitude(column)), \(PostgresGeoIndex.longitude(column))) AS \(quote(Self.distanceColumn))")
        }
        if query.countsTotal {
            statement.append(", " + totalExpression(schema, filter: query.filter, into: &statement) + " AS \(quote(Self.totalColumn))")
        }
        statement.append(" FROM \(quote(schema.name))")
        if let filter = query.filter {
            statement.append(" WHERE " + PostgresFilterCompiler(schema: schema).compile(filter, into: &statement))
        }
        if near != nil {
            // NULLs (objects without the point) first, as SQLite and every other order (D18).
            statement.append(" ORDER BY \(quote(Self.distanceColumn)) ASC NULLS FIRST, \(quote(schema.primaryKey)) ASC")
        } else {
            statement.append(" ORDER BY \(orderClause(query.order, schema: schema))")
        }
        if let limit = query.limit {
            statement.append(" LIMIT \(statement.bind(Int64(limit))) OFFSET \(statement.bind(Int64(query.offset)))")
        } else if query.offset > 0 {
            statement.append(" OFFSET \(statement.bind(Int64(query.offset)))")
        }
        return statement
    }

    /// SQLite puts NULLs first in ascending order and last in descending order; so does this. The
    /// primary key, never NULL, is spelt as the indexes hold it (`PostgresIndexStatements.columns`).
    private func orderClause(_ keys: [SortKey], schema: SchemaDefinition) -> String {
        PageOrder.keys(keys, primaryKey: schema.primaryKey).map { key in
            let direction = key.field == schema.primaryKey ? (key.ascending ? "ASC" : "DESC") : (key.ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")
            return "\(quote(key.field)) \(direction)"
        }.joined(separator: ", ")
    }

    // MARK: - Writing

    func insert(_ object: JSONObject, into schema: SchemaDefinition) async throws {
        let fields = object.keys.sorted()
        var statement = PostgresStatement("INSERT INTO \(quote(schema.name)) (\(fields.map(quote).joined(separator: ", "))) VALUES (")
        statement.append(fields.map { statement.bind(object[$0]!) }.joined(separator: ", ") + ")")
        // A duplicate key must not abort the transaction (a bulk create goes on with the next
        // object, as on SQLite): the primary key is the table's only unique constraint.
        statement.append(" ON CONFLICT DO NOTHING RETURNING 1")
        if try await run(statement).isEmpty { throw StorageError.duplicateKey }
    }

    func update(_ schema: SchemaDefinition, id: String, changes: JSONObject) async throws {
        guard !changes.isEmpty else { return }
        var statement = PostgresStatement("UPDATE \(quote(schema.name)) SET ")
        statement.append(changes.keys.sorted().map { "\(quote($0)) = \(statement.bind(changes[$0]!))" }.joined(separator: ", "))
        statement.append(" WHERE \(quote(schema.primaryKey)) = \(statement.bind(id))")
        try await run(statement)
    }

    func delete(_ schema: SchemaDefinition, id: String) async throws -> Bool {
        var statement = PostgresStatement("DELETE FROM \(quote(schema.name)) WHERE \(quote(schema.primaryKey)) = ")
        statement.append(statement.bind(id) + " RETURNING 1")
        return try await !run(statement).isEmpty
    }

    func deleteObjects(_ schema: SchemaDefinition, matching filter: TypedFilter, returning: [String]?) async throws -> [JSONObject] {
        var statement = PostgresStatement("DELETE FROM \(quote(schema.name)) WHERE ")
        statement.append(PostgresFilterCompiler(schema: schema).compile(filter, into: &statement))
        guard let returning else {
            try await run(statement)
            return []
        }
        statement.append(" RETURNING " + ([schema.primaryKey] + returning).map(quote).joined(separator: ", "))
        return try await PostgresRowDecoder.objects(run(statement), schema: schema)
    }

    func deletePushTokens(linkedTo userID: String) async throws {
        var statement = PostgresStatement("DELETE FROM _sm_push_tokens WHERE user_id = ")
        statement.append(statement.bind(userID))
        try await run(statement)
    }

    func deleteSocialLinks(userSchema: String, userID: String) async throws {
        var statement = PostgresStatement("DELETE FROM _sm_social_links WHERE user_schema = ")
        statement.append("\(statement.bind(userSchema)) AND user_id = \(statement.bind(userID))")
        try await run(statement)
    }

    /// The token store's rows of a deleted user, in the delete's own transaction.
    func deleteCredentials(userSchema: String, userID: String) async throws {
        for table in ["_sm_tokens", "_sm_cookie_sessions", "_sm_temporary_passwords"] {
            var statement = PostgresStatement("DELETE FROM \(table) WHERE user_schema = ")
            statement.append("\(statement.bind(userSchema)) AND user_id = \(statement.bind(userID))")
            try await run(statement)
        }
    }

    func recordConfiguredGrant(role: String, member: String, at time: Int64) async throws -> Bool {
        var statement = PostgresStatement("INSERT INTO _sm_role_grants (role, member, granted_at) VALUES (")
        statement.append("\(statement.bind(role)), \(statement.bind(member)), \(statement.bind(time))) ON CONFLICT DO NOTHING RETURNING 1")
        return try await !run(statement).isEmpty
    }

    func forgetConfiguredGrants() async throws {
        try await run(PostgresStatement("DELETE FROM _sm_role_grants"))
    }
}

/// Work to do once the transaction has committed (publishing a schema to the registry), dropped
/// when it rolls back or is retried.
final class CommitHooks: Sendable {
    private let hooks = Mutex<[@Sendable () -> Void]>([])

    func append(_ hook: @escaping @Sendable () -> Void) {
        hooks.withLock { $0.append(hook) }
    }

    func removeAll() {
        hooks.withLock { $0.removeAll() }
    }

    func runAll() {
        for hook in hooks.withLock({ $0 }) { hook() }
    }
}
