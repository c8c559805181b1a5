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
    /// Per column: nil for a column that is not a field (a page's total, a distance), else the
    /// field's type (nil inside for a system field).
    private let columns: [(name: String, type: FieldType?)?]
    /// An empty object with room for every column, which each row's object starts as a copy of.
    /// `JSONObject(minimumCapacity:)` is not specialised: for every row it looked up the type
    /// metadata of the dictionary's storage and hashed a seed, 860 instructions a row, 2.6% of an
    /// expanded page (issue 19). A copy of an empty dictionary allocates storage of the same size
    /// and copies no element.
    private let empty: JSONObject

    /// - Parameter skipping: columns the statement selects besides the fields.
    private init(columnNames: [String], schema: SchemaDefinition, skipping: Set<String> = []) {
        columns = columnNames.map { name in
            skipping.contains(name) ? nil : (name, schema.type(of: name))
        }
        empty = JSONObject(minimumCapacity: columns.count)
    }

    /// The object of the row `statement` stands on. Its values are read straight from SQLite:
    /// GRDB's `row[index]` is generic, and unspecialised outside GRDB it looked up type
    /// metadata for every value (5% of an expanded page).
    private func object(atCurrentRowOf statement: SQLiteStatement) throws -> JSONObject {
        var object = empty
        for (index, column) in columns.enumerated() {
            guard let column else { continue }
            if let value = try SQLiteValueMapping.jsonValue(column: CInt(index), of: statement, type: column.type) {
                object[column.name] = value
            }
        }
        return object
    }

    /// Every row `statement` returns, as objects; `each` sees each row beside its object.
    static func objects(
        _ statement: Statement, arguments: StatementArguments, schema: SchemaDefinition, skipping: Set<String> = [],
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
