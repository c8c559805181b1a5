import GRDB
import GRDBSQLite  // the system SQLite, as GRDB links it: column names straight from a statement
import StackMobCore

/// Reads the rows of one statement as objects of one schema.
///
/// Made once per statement run from its column names, so that which columns are fields, and of
/// which type, is settled once rather than looked up by name for every column of every row; and the
/// rows are read in place through a cursor rather than copied out first. An expanded page reads
/// hundreds of rows, and the lookups and copies were a noticeable share of its time
/// (docs/benchmarks.md, "Figures behind design choices").
struct SQLiteRowDecoder {
    /// A column that is a field: its position in the row, its name and how its values read. A
    /// struct rather than a tuple: an array of tuples is copied and destroyed through the
    /// runtime's generic tuple witnesses.
    private struct Field {
        let column: CInt
        let key: JSONObject.PreparedKey
        let reading: SQLiteValueMapping.Reading
    }

    /// A column that is not a field (a page's total, a distance), read by name.
    fileprivate struct Extra {
        let name: String
        let column: CInt
    }

    /// The columns that are fields, in the byte order of their names. Read in that order, every
    /// value is appended to its object with one comparison (`JSONObject` keeps its members in
    /// key order).
    private let fields: [Field]
    fileprivate let extras: [Extra]

    /// - Parameter skipping: columns the statement selects besides the fields (a page's total,
    ///   a distance).
    fileprivate init(columnNames: [String], schema: SchemaDefinition, skipping: [String]) {
        var fields: [Field] = []
        var extras: [Extra] = []
        fields.reserveCapacity(columnNames.count)
        for (column, name) in columnNames.enumerated() {
            if skipping.contains(name) {
                extras.append(Extra(name: name, column: CInt(column)))
            } else {
                fields.append(Field(column: CInt(column), key: JSONObject.PreparedKey(name), reading: .init(schema.type(of: name))))
            }
        }
        fields.sort { $0.key < $1.key }
        self.fields = fields
        self.extras = extras
    }

    /// The object of the row `statement` stands on. Its values are read straight from SQLite:
    /// GRDB's `row[index]` is generic, and unspecialised outside GRDB it looked up type metadata
    /// for every value (docs/benchmarks.md, "Figures behind design choices").
    fileprivate func object(atCurrentRowOf statement: SQLiteStatement) throws -> JSONObject {
        var object = JSONObject(minimumCapacity: fields.count)
        for field in fields {
            if let value = try SQLiteValueMapping.jsonValue(column: field.column, of: statement, reading: field.reading) {
                object.append(value, forKeyAfterAll: field.key)
            }
        }
        return object
    }

    /// The columns of the current row that are not fields, by name.
    struct ExtraColumns {
        fileprivate let statement: SQLiteStatement
        fileprivate let extras: [Extra]

        /// The column's integer; nil for NULL, or a column the statement does not select.
        func integer(_ name: String) -> Int? {
            column(name).map { Int(sqlite3_column_int64(statement, $0)) }
        }

        /// The column's number; nil for NULL, or a column the statement does not select.
        func double(_ name: String) -> Double? {
            column(name).map { sqlite3_column_double(statement, $0) }
        }

        private func column(_ name: String) -> CInt? {
            guard let column = extras.first(where: { $0.name == name })?.column,
                sqlite3_column_type(statement, column) != SQLITE_NULL
            else { return nil }
            return column
        }
    }

    /// Every row `statement` returns, as objects; `each` sees each row's other columns beside its
    /// object. `inline` says that the statement runs on an inline connection, on the caller's
    /// thread: it then throws `SQLiteInlineConnection.LongRead` past `SQLitePool.inlineValueBytes`.
    static func objects(
        _ statement: Statement, arguments: StatementArguments, schema: SchemaDefinition, skipping: [String] = [], inline: Bool,
        each: (ExtraColumns, inout JSONObject) throws -> Void = { _, _ in }
    ) throws -> [JSONObject] {
        try objects(statement, arguments: arguments, schema: schema, skipping: skipping, byteLimit: nil, inline: inline, each: each).objects
    }

    /// `objects`, reading no row after the one whose values take the rows read past
    /// `byteLimit` bytes (`ObjectQuery.byteLimit`); `endedAtByteLimit` says whether it stopped
    /// there, and `bytes` how many it counted.
    static func objects(
        _ statement: Statement, arguments: StatementArguments, schema: SchemaDefinition, skipping: [String] = [], byteLimit: Int?,
        inline: Bool, each: (ExtraColumns, inout JSONObject) throws -> Void = { _, _ in }
    ) throws -> (objects: [JSONObject], endedAtByteLimit: Bool, bytes: Int) {
        var objects: [JSONObject] = []
        let rows = try ObjectCursor(
            statement, arguments: arguments, schema: schema, skipping: skipping, countsBytes: inline || byteLimit != nil,
            inlineLimit: inline ? SQLitePool.inlineValueBytes : nil)
        while var object = try rows.next() {
            try each(ExtraColumns(statement: statement.sqliteStatement, extras: rows.extras), &object)
            objects.append(object)
            if let byteLimit, rows.bytes > byteLimit { return (objects, true, rows.bytes) }
        }
        return (objects, false, rows.bytes)
    }

    /// The bytes of the current row's values as stored: a text's or a blob's length, eight for
    /// anything else. Read before the row's values: a column's type says nothing once a value
    /// of it was converted.
    fileprivate static func rowBytes(_ statement: SQLiteStatement) -> Int {
        var bytes = 0
        for column in 0..<sqlite3_column_count(statement) {
            switch sqlite3_column_type(statement, column) {
            case SQLITE_TEXT, SQLITE_BLOB: bytes += Int(sqlite3_column_bytes(statement, column))
            default: bytes += 8
            }
        }
        return bytes
    }

    fileprivate static func columnNames(of statement: SQLiteStatement) -> [String] {
        (0..<sqlite3_column_count(statement)).map { String(cString: sqlite3_column_name(statement, $0)) }
    }
}

/// A statement's rows as objects. GRDB steps the statement (and keeps its account of every
/// statement run), but no `Row` is made: GRDB's row cursor made one per statement, with a
/// case-insensitive index of its column names, which a decoder reading columns by position never
/// used (docs/benchmarks.md, "Figures behind design choices").
private final class ObjectCursor: DatabaseCursor {
    typealias Element = JSONObject

    let _statement: Statement
    var _isDone = false
    private let schema: SchemaDefinition
    private let skipping: [String]
    private var decoder: SQLiteRowDecoder?
    /// Whether `bytes` is counted.
    private let countsBytes: Bool
    /// The stored bytes of the rows read so far, when counted (`rowBytes`).
    fileprivate private(set) var bytes = 0
    /// On an inline connection, where a read holds an event loop: past these bytes the read
    /// stops (`LongRead`) before it decodes the row, and runs again on GRDB's pool.
    private let inlineLimit: Int?

    /// The non-field columns, once a row was read.
    fileprivate var extras: [SQLiteRowDecoder.Extra] { decoder?.extras ?? [] }

    init(
        _ statement: Statement, arguments: StatementArguments, schema: SchemaDefinition, skipping: [String], countsBytes: Bool,
        inlineLimit: Int?
    ) throws {
        _statement = statement
        self.schema = schema
        self.skipping = skipping
        self.countsBytes = countsBytes
        self.inlineLimit = inlineLimit
        // What GRDB's cursors do first: reset the statement, check and bind the arguments.
        try statement.setArguments(arguments)
    }

    deinit {
        // What GRDB's cursors do (its `reset()` is internal): a statement left on a row would
        // hold its read snapshot. The reset fails after a failed step, already reported.
        sqlite3_reset(_statement.sqliteStatement)
    }

    func _element(sqliteStatement: SQLiteStatement) throws -> JSONObject {
        if countsBytes {
            bytes += SQLiteRowDecoder.rowBytes(sqliteStatement)
            if let inlineLimit, bytes > inlineLimit { throw SQLiteInlineConnection.LongRead() }
        }
        // The columns are read from SQLite once the statement has run: SQLite recompiles a
        // cached statement whose table gained a column when it steps, and only then does
        // `SELECT *` name the new column. GRDB's `columnNames` keeps the names it read first.
        if let decoder { return try decoder.object(atCurrentRowOf: sqliteStatement) }
        let decoder = SQLiteRowDecoder(columnNames: SQLiteRowDecoder.columnNames(of: sqliteStatement), schema: schema, skipping: skipping)
        self.decoder = decoder
        return try decoder.object(atCurrentRowOf: sqliteStatement)
    }
}
