import GRDB
import GRDBSQLite  // the system SQLite, as GRDB links it
import StackMobCore

/// How typed field values are stored in SQLite columns and read back.
///
/// Scalars use SQLite's own types (booleans as 0/1); arrays and geopoints are stored as JSON text,
/// which SQLite's JSON functions can still query.
enum SQLiteValueMapping {
    static func columnType(_ type: FieldType) -> String {
        switch type {
        case .string, .password, .array, .geopoint, .relation, .binary: "TEXT"
        case .integer, .boolean: "INTEGER"
        case .float: "REAL"
        }
    }

    static func databaseValue(_ value: JSONValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .bool(let bool): (bool ? 1 : 0).databaseValue
        case .integer(let integer): integer.databaseValue
        case .float(let double): double.databaseValue
        case .string(let string): string.databaseValue
        case .array, .object: JSONWriter.string(value).databaseValue
        }
    }

    /// How a column's stored value becomes JSON, settled once per column from its field's type: a
    /// `FieldType` carries a relation's target name, and copying it for every value of every row
    /// retained and released that string (docs/benchmarks.md).
    enum Reading {
        case boolean, float, json, plain

        init(_ type: FieldType?) {
            switch type {
            case .boolean: self = .boolean
            case .float: self = .float
            case .array, .geopoint, .relation(_, toMany: true): self = .json
            default: self = .plain
            }
        }
    }

    /// The JSON value of column `index` of the row `statement` stands on, or nil for SQL NULL.
    ///
    /// Read from SQLite without a `DatabaseValue` in between: text is decoded from the bytes SQLite
    /// holds, where GRDB made a `String(cString:)` of it that a stored array's parse then copied
    /// again (docs/benchmarks.md).
    static func jsonValue(column index: CInt, of statement: SQLiteStatement, reading: Reading) throws -> JSONValue? {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER:
            let integer = sqlite3_column_int64(statement, index)
            switch reading {
            case .boolean: return .bool(integer != 0)
            case .float: return .float(Double(integer))
            default: return .integer(integer)
            }
        case SQLITE_FLOAT:
            return .float(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, index) else { return nil }
            // All of the stored text, U+0000 included: GRDB's `String(cString:)` ended it at the
            // first NUL byte, and a row another program wrote with one came back cut.
            let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, index)))
            switch reading {
            case .json: return try JSONParser.parse(bytes)
            default: return .string(String(decoding: bytes, as: UTF8.self))
            }
        default:
            // NULL; or a blob, which nothing we write is: someone edited the file by hand.
            return nil
        }
    }
}
