import GRDB
import StackMobCore

/// One read snapshot or write transaction on a SQLite connection.
///
/// SQL is assembled only from identifiers that the domain validated (`Identifier`) and that are
/// always double-quoted here; every value is a bound argument.
// Unchecked: it is used only inside `ConnectionExecutor.run`, on the connection's own thread.
struct SQLiteTransaction: StorageWriter, @unchecked Sendable {
    let db: Database
    let registry: SchemaRegistry
    let indexes: IndexPlan
    /// The statements that ran over the budget of a read on the calling thread (nil in writes).
    let longStatements: LongStatements?

    init(db: Database, registry: SchemaRegistry, indexes: IndexPlan, longStatements: LongStatements? = nil) {
        self.db = db
        self.registry = registry
        self.indexes = indexes
        self.longStatements = longStatements
    }

    // MARK: - Reading

    func fetchObject(_ schema: SchemaDefinition, id: String) throws -> JSONObject? {
        let sql = "SELECT * FROM \(quote(schema.name)) WHERE \(quote(schema.primaryKey)) = ?"
        let statement = try db.cachedStatement(sql: sql)
        return try SQLiteRowDecoder.objects(statement, arguments: [id], schema: schema, inline: isInline).first
    }

    func fetchObjects(_ schema: SchemaDefinition, ids: [String], admitting rows: RowFilter?, byteLimit: Int?) throws -> ObjectPage {
        guard !ids.isEmpty else { return ObjectPage(objects: [], total: nil) }
        let (statement, arguments) = try idsStatement(schema, ids: ids, admitting: rows)
        let (objects, ended, bytes) = try SQLiteRowDecoder.objects(
            statement, arguments: arguments, schema: schema, byteLimit: byteLimit, inline: isInline)
        return ObjectPage(objects: objects, total: nil, endedAtByteLimit: ended, storedBytes: bytes)
    }

    func fetchObjects(_ schema: SchemaDefinition, orderedIDs ids: [String], admitting rows: RowFilter?, byteLimit: Int) throws -> ObjectPage {
        guard !ids.isEmpty else { return ObjectPage(objects: [], total: nil) }
        // The ids drive the loop (below): the rows come in their order.
        let (statement, arguments) = try idsStatement(schema, ids: ids, admitting: rows)
        let (objects, ended, bytes) = try SQLiteRowDecoder.objects(
            statement, arguments: arguments, schema: schema, byteLimit: byteLimit, inline: isInline)
        return ObjectPage(objects: objects, total: nil, endedAtByteLimit: ended, storedBytes: bytes)
    }

    private func idsStatement(_ schema: SchemaDefinition, ids: [String], admitting rows: RowFilter?) throws -> (Statement, StatementArguments) {
        // One bound JSON array, whatever its length: no SQLite variable limit, one cached
        // statement. The ids drive the loop, one primary-key lookup each.
        // `pk IN (SELECT value FROM json_each(?))` first copied them into a temporary b-tree, a
        // large part of the statement's cost (docs/benchmarks.md, "Figures behind design choices").
        // The ids are distinct (the protocol says so), so the join returns each object once.
        // `_sm_ids` cannot be a schema's name (they start with a letter); CROSS JOIN keeps SQLite
        // from putting the table in the outer loop.
        let table = quote(schema.name)
        var sql = "SELECT \(table).* FROM json_each(?) AS _sm_ids CROSS JOIN \(table) ON \(table).\(quote(schema.primaryKey)) = _sm_ids.value"
        var arguments: StatementArguments = [JSONWriter.arrayText(of: ids)]
        if let rows {
            var compiler = SQLiteFilterCompiler(schema: schema.name)
            sql += " WHERE " + compiler.compile(rows, table: schema.name)
            arguments += StatementArguments(compiler.arguments)
        }
        return (try db.cachedStatement(sql: sql), arguments)
    }

    func fetchObjects(_ schema: SchemaDefinition, query: ObjectQuery) throws -> ObjectPage {
        // The total of a whole table is one step of SQLite's, however large the table
        // (`SQLitePool.inlineStepLimit`), which reads the table's smallest index to its end: on
        // the calling thread only for a table small enough to be read in about a millisecond,
        // else where long reads go.
        let inline = isInline
        if query.countsTotal, query.filter == nil, inline, try largestRowID(schema) > Self.inlineCountRows {
            throw SQLiteInlineConnection.LongRead()
        }
        let near = query.filter?.nearCondition
        let (sql, arguments) = selectStatement(schema, query: query, near: near)
        // A statement that went over the budget here before goes where long reads go at once.
        if inline, let longStatements, longStatements.sendsToPool(sql) { throw SQLiteInlineConnection.LongRead() }
        let statement = try db.cachedStatement(sql: sql)
        var count: Int?
        let skipping = [Self.totalColumn, Self.distanceColumn]
        let page: (objects: [JSONObject], endedAtByteLimit: Bool, bytes: Int)
        do {
            page = try SQLiteRowDecoder.objects(
                statement, arguments: arguments, schema: schema, skipping: skipping, byteLimit: query.byteLimit, inline: inline
            ) { extras, object in
                // Every row holds the same total: read once.
                if query.countsTotal, count == nil { count = extras.integer(Self.totalColumn) }
                if let near, let distance = extras.double(Self.distanceColumn) { object.giveDistance(distance, toPointIn: near.field) }
            }
        } catch let error as SQLiteInlineConnection.LongRead {
            // Its rows passed what the calling thread decodes: sent where long reads go at once
            // next time, as a statement over the step budget is.
            longStatements?.remember(sql)
            throw error
        }
        let (objects, ended, bytes) = page
        if inline { longStatements?.forget(sql) }
        return ObjectPage(objects: objects, total: count, endedAtByteLimit: ended, storedBytes: bytes)
    }

    /// The rows a whole-table count may read on the calling thread: SQLite counts about 50,000
    /// index entries a millisecond here (docs/benchmarks.md, "Memory that returns").
    static let inlineCountRows: Int64 = 50_000

    /// An upper bound of the table's rows, read from the end of its b-tree: n rows hold n
    /// distinct positive rowids, so the largest is at least their number.
    private func largestRowID(_ schema: SchemaDefinition) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(rowid) FROM \(quote(schema.name))")) ?? 0
    }

    func fetchPrimaryKeys(_ schema: SchemaDefinition, query: ObjectQuery) throws -> [String] {
        var keysOnly = query
        keysOnly.countsTotal = false
        let (sql, arguments) = selectStatement(schema, query: keysOnly, near: query.filter?.nearCondition, columns: quote(schema.primaryKey))
        let statement = try db.cachedStatement(sql: sql)
        guard isInline else { return try String.fetchAll(statement, arguments: arguments) }
        // On the calling thread: within `SQLitePool.inlineKeyBytes`, or again where a long read
        // holds up no one.
        var keys: [String] = []
        var bytes = 0
        let cursor = try String.fetchCursor(statement, arguments: arguments)
        while let key = try cursor.next() {
            bytes += key.utf8.count
            if bytes > SQLitePool.inlineKeyBytes { throw SQLiteInlineConnection.LongRead() }
            keys.append(key)
        }
        return keys
    }

    /// SQLite's plan for a query, one line per step: how tests and benchmarks show that a query
    /// uses an index.
    func queryPlan(_ schema: SchemaDefinition, query: ObjectQuery) throws -> [String] {
        let (sql, arguments) = selectStatement(schema, query: query, near: query.filter?.nearCondition)
        return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] }
    }

    /// One statement for the whole read: filter, order, window and (when asked) the total.
    private func selectStatement(
        _ schema: SchemaDefinition, query: ObjectQuery, near: (field: String, origin: GeoPoint)?, columns: String = "*"
    ) -> (String, StatementArguments) {
        var arguments: StatementArguments = []
        // A `near` query is ordered by distance, and each result carries it (§5.8).
        var distance = ""
        if let near {
            let column = quote(near.field)
            distance = ", sm_distance(?, ?, json_extract(\(column), '$.lat'), json_extract(\(column), '$.lon')) AS \(quote(Self.distanceColumn))"
            arguments += [near.origin.lat, near.origin.lon]
        }
        var condition = ""
        var conditionArguments = StatementArguments()
        if let filter = query.filter {
            var compiler = SQLiteFilterCompiler(schema: schema.name)
            condition = " WHERE " + compiler.compile(filter)
            conditionArguments = StatementArguments(compiler.arguments)
        }
        // The total comes from an uncorrelated subquery, which SQLite evaluates once and can
        // answer from an index alone: page and total in one statement and one snapshot, so they
        // always agree. An OR group whose branches each have an index is counted branch by branch
        // (`UnionCount`).
        var total = ""
        if query.countsTotal {
            let (count, countArguments) = countExpression(schema, filter: query.filter, condition: condition, arguments: conditionArguments)
            total = ", \(count) AS \(quote(Self.totalColumn))"
            arguments += countArguments
        }
        var sql = "SELECT \(columns)\(distance)\(total) FROM \(quote(schema.name))\(condition)"
        arguments += conditionArguments
        if near != nil {
            sql += " ORDER BY \(quote(Self.distanceColumn)) ASC, \(quote(schema.primaryKey)) ASC"
        } else {
            sql += " ORDER BY \(orderClause(query.order, schema: schema))"
        }
        if let limit = query.limit {
            sql += " LIMIT ? OFFSET ?"
            arguments += [limit, query.offset]
        } else if query.offset > 0 {
            sql += " LIMIT -1 OFFSET ?"
            arguments += [query.offset]
        }
        return (sql, arguments)
    }

    /// The total's expression: one count of the filter (`condition`, already compiled), or a
    /// sum of counts without its OR group when an index serves every branch (`UnionCount`).
    private func countExpression(
        _ schema: SchemaDefinition, filter: TypedFilter?, condition: String, arguments: StatementArguments
    ) -> (String, StatementArguments) {
        let table = quote(schema.name)
        let indexed = leadingIndexedFields(schema)
        guard let filter, let union = UnionCount(filter, seekable: { !$0.seekableFields.isDisjoint(with: indexed) }) else {
            return ("(SELECT COUNT(*) FROM \(table)\(condition))", arguments)
        }
        var sum = ""
        var sumArguments = StatementArguments()
        for term in union.terms {
            var compiler = SQLiteFilterCompiler(schema: schema.name)
            let count = "(SELECT COUNT(*) FROM \(table) WHERE \(compiler.compile(term.filter)))"
            sum += sum.isEmpty ? count : (term.sign > 0 ? " + " : " - ") + count
            sumArguments += StatementArguments(compiler.arguments)
        }
        return ("(\(sum))", sumArguments)
    }

    /// The fields an index of the table begins with: the configured ones, the implied ones, the
    /// newest-first ones (`NewestFirstIndex`) and the primary key.
    private func leadingIndexedFields(_ schema: SchemaDefinition) -> Set<String> {
        var fields: Set<String> = [schema.primaryKey, SchemaDefinition.createdDate, SchemaDefinition.owner]
        for index in indexes.indexes(of: schema.name) + IndexPlan.implied {
            if let first = index.first { fields.insert(first) }
        }
        return fields
    }

    private static let totalColumn = "_sm_total"
    private static let distanceColumn = "_sm_distance"

    private func orderClause(_ keys: [SortKey], schema: SchemaDefinition) -> String {
        PageOrder.keys(keys, primaryKey: schema.primaryKey).map { "\(quote($0.field)) \($0.ascending ? "ASC" : "DESC")" }.joined(separator: ", ")
    }

    // MARK: - Writing

    func evolveSchema(from previous: SchemaDefinition?, to next: SchemaDefinition) throws {
        if let previous {
            for (field, type) in next.fields.sorted(by: { $0.key < $1.key }) where previous.type(of: field) == nil {
                try db.execute(sql: "ALTER TABLE \(quote(next.name)) ADD COLUMN \(quote(field)) \(SQLiteValueMapping.columnType(type))")
            }
        } else {
            try createTable(next)
        }
        for (field, type) in next.fields where type == .geopoint && previous?.type(of: field) == nil {
            try SQLiteGeoIndex.create(schema: next.name, field: field, in: db)
        }
        // An index is created by the write that brings its last missing field.
        for fields in indexes.indexes(of: next.name) {
            let complete = fields.allSatisfy { next.type(of: $0) != nil || next.isSystemField($0) }
            let wasComplete = previous.map { previous in fields.allSatisfy { previous.type(of: $0) != nil || previous.isSystemField($0) } } ?? false
            if complete && !wasComplete {
                try db.execute(sql: SQLiteIndexStatements.create(schema: next.name, fields: fields, primaryKey: next.primaryKey))
            }
        }
        try db.execute(
            sql: "INSERT INTO _sm_schemas (name, definition) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET definition = excluded.definition",
            arguments: [next.name, JSONWriter.string(next.registryJSON)])
        let registry = self.registry
        db.afterNextTransaction(onCommit: { _ in registry.publish(next) })
    }

    private func createTable(_ schema: SchemaDefinition) throws {
        var columns = [
            "\(quote(schema.primaryKey)) TEXT NOT NULL PRIMARY KEY",
            "\(quote(SchemaDefinition.createdDate)) INTEGER NOT NULL",
            "\(quote(SchemaDefinition.lastModifiedDate)) INTEGER NOT NULL",
            "\(quote(SchemaDefinition.owner)) TEXT",
        ]
        for (field, type) in schema.fields.sorted(by: { $0.key < $1.key }) {
            columns.append("\(quote(field)) \(SQLiteValueMapping.columnType(type))")
        }
        try db.execute(sql: "CREATE TABLE \(quote(schema.name)) (\(columns.joined(separator: ", ")))")
        for fields in IndexPlan.implied {
            try db.execute(sql: SQLiteIndexStatements.create(schema: schema.name, fields: fields, primaryKey: schema.primaryKey))
        }
        try Self.createNewestFirstIndexes(schema: schema.name, primaryKey: schema.primaryKey, in: db)
    }

    static func createNewestFirstIndexes(schema: String, primaryKey: String, in db: Database) throws {
        for index in NewestFirstIndex.all(schema: schema, primaryKey: primaryKey) {
            try db.execute(sql: SQLiteIndexStatements.create(index, schema: schema))
        }
    }

    func insert(_ object: JSONObject, into schema: SchemaDefinition) throws {
        let fields = object.keys.sorted()
        let columns = fields.map(quote).joined(separator: ", ")
        let placeholders = repeatElement("?", count: fields.count).joined(separator: ", ")
        let statement = try db.cachedStatement(sql: "INSERT INTO \(quote(schema.name)) (\(columns)) VALUES (\(placeholders))")
        let arguments = StatementArguments(fields.map { SQLiteValueMapping.databaseValue(object[$0]!) })
        do {
            try statement.execute(arguments: arguments)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
            throw StorageError.duplicateKey
        }
    }

    func update(_ schema: SchemaDefinition, id: String, changes: JSONObject) throws {
        guard !changes.isEmpty else { return }
        let fields = changes.keys.sorted()
        let assignments = fields.map { "\(quote($0)) = ?" }.joined(separator: ", ")
        let statement = try db.cachedStatement(
            sql: "UPDATE \(quote(schema.name)) SET \(assignments) WHERE \(quote(schema.primaryKey)) = ?")
        var arguments = StatementArguments(fields.map { SQLiteValueMapping.databaseValue(changes[$0]!) })
        arguments += [id]
        try statement.execute(arguments: arguments)
    }

    func delete(_ schema: SchemaDefinition, id: String) throws -> Bool {
        let statement = try db.cachedStatement(sql: "DELETE FROM \(quote(schema.name)) WHERE \(quote(schema.primaryKey)) = ?")
        try statement.execute(arguments: [id])
        return db.changesCount > 0
    }

    func deleteObjects(_ schema: SchemaDefinition, matching filter: TypedFilter, returning: [String]?) throws -> [JSONObject] {
        var compiler = SQLiteFilterCompiler(schema: schema.name)
        let condition = compiler.compile(filter)
        let sql = "DELETE FROM \(quote(schema.name)) WHERE \(condition)"
        let arguments = StatementArguments(compiler.arguments)
        guard let returning else {
            try db.execute(sql: sql, arguments: arguments)
            return []
        }
        // RETURNING (SQLite ≥ 3.35) reports exactly the rows this statement removed.
        let columns = ([schema.primaryKey] + returning).map(quote).joined(separator: ", ")
        let statement = try db.makeStatement(sql: sql + " RETURNING " + columns)
        return try SQLiteRowDecoder.objects(statement, arguments: arguments, schema: schema, inline: isInline)
    }

    /// Whether the transaction runs on an inline connection, on the caller's thread
    /// (`SQLitePool.read`).
    private var isInline: Bool {
        db.configuration.label == SQLiteInlineReaders.label
    }

    private func quote(_ identifier: String) -> String {
        "\"\(identifier)\""
    }
}
