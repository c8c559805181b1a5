import GRDB
import GRDBSQLite  // the system SQLite, as GRDB links it: column names straight from a statement
import StackMobCore

/// Reads the rows of one statement as objects of one schema.
///
/// Made once per statement run from its column names, so that which columns are fields, and of
/// which type, is settled once rather than looked up by name for every column of every row;
/// and the rows are read in place through a cursor rather than copied out first. An expanded
/// page of 20 reads some 240 rows, and the lookups and copies were a tenth of its time
/// (issue 19).
struct SQLiteRowDecoder {
    /// A column that is a field: its position in the row, its name and how its values read. A
    /// struct rather than a tuple: an array of tuples is copied and destroyed through the
    /// runtime's generic tuple witnesses.
    private struct Field {
        let column: CInt
        let key: JSONObject.PreparedKey
        let reading: SQLiteValueMapping.Reading
    }

    /// The columns that are fields, in the byte order of their names. Read in that order, every
    /// value is appended to its object with one comparison (`JSONObject` keeps its members in
    /// key order).
    private let fields: [Field]

    /// - Parameter skipping: columns the statement selects besides the fields (a page's total,
    ///   a distance).
    private init(columnNames: [String], schema: SchemaDefinition, skipping: [String]) {
        var fields: [Field] = []
        fields.reserveCapacity(columnNames.count)
        for (column, name) in columnNames.enumerated() where !skipping.contains(name) {
            fields.append(Field(column: CInt(column), key: JSONObject.PreparedKey(name), reading: .init(schema.type(of: name))))
        }
        fields.sort { $0.key < $1.key }
        self.fields = fields
    }

    /// The object of the row `statement` stands on. Its values are read straight from SQLite:
    /// GRDB's `row[index]` is generic, and unspecialised outside GRDB it looked up type
    /// metadata for every value (5% of an expanded page).
    private func object(atCurrentRowOf statement: SQLiteStatement) throws -> JSONObject {
        var object = JSONObject(minimumCapacity: fields.count)
        for field in fields {
            if let value = try SQLiteValueMapping.jsonValue(column: field.column, of: statement, reading: field.reading) {
                object.append(value, forKeyAfterAll: field.key)
            }
        }
        return object
    }

    /// Every row `statement` returns, as objects; `each` sees each row beside its object.
    static func objects(
        _ statement: Statement, arguments: StatementArguments, schema: SchemaDefinition, skipping: [String] = [],
        each: (Row, inout JSONObject) throws -> Void = { _, _ in }
    ) throws -> [JSONObject] {
        var objects: [JSONObject] = []
        var decoder: SQLiteRowDecoder?
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        while let row = try rows.next() {
            // The columns are read from SQLite once the statement has run: SQLite recompiles a
            // cached statement whose table gained a column when it steps, and only then does
            // `SELECT *` name the new column. GRDB's `columnNames` keeps the names it read
            // first, which a cursor reads before the first step.
            let rowDecoder = decoder ?? SQLiteRowDecoder(columnNames: columnNames(of: statement.sqliteStatement), schema: schema, skipping: skipping)
            decoder = rowDecoder
            var object = try rowDecoder.object(atCurrentRowOf: statement.sqliteStatement)
            try each(row, &object)
            objects.append(object)
        }
        return objects
    }

    private static func columnNames(of statement: SQLiteStatement) -> [String] {
        (0..<sqlite3_column_count(statement)).map { String(cString: sqlite3_column_name(statement, $0)) }
    }
}
