import GRDB
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

    /// The JSON value of a column, or nil for SQL NULL.
    static func jsonValue(_ dbValue: DatabaseValue, type: FieldType?) throws -> JSONValue? {
        switch dbValue.storage {
        case .null:
            return nil
        case .int64(let integer):
            switch type {
            case .boolean: return .bool(integer != 0)
            case .float: return .float(Double(integer))
            default: return .integer(integer)
            }
        case .double(let double):
            return .float(double)
        case .string(let text):
            switch type {
            case .array, .geopoint, .relation(_, toMany: true): return try JSONParser.parse(text)
            default: return .string(text)
            }
        case .blob:
            // Nothing we write is a blob; a blob means someone edited the file by hand.
            return nil
        }
    }
}
