import GRDB
import GRDBSQLite
import StackMobCore
@testable import StackMobSQLite
import Testing

/// Columns are read straight from SQLite (`SQLiteValueMapping.jsonValue(column:of:type:)`), not
/// through GRDB's `DatabaseValue`; every kind of stored value must read as it did through it.
@Suite("SQLite column reads")
struct ColumnReadTests {
    /// The values as the reader before this one made them: GRDB's `DatabaseValue`, then the type.
    private func throughDatabaseValue(_ statement: SQLiteStatement, _ index: CInt, type: FieldType?) throws -> JSONValue? {
        switch DatabaseValue(sqliteStatement: statement, index: index).storage {
        case .null, .blob: return nil
        case .int64(let integer):
            switch type {
            case .boolean: return .bool(integer != 0)
            case .float: return .float(Double(integer))
            default: return .integer(integer)
            }
        case .double(let double): return .float(double)
        case .string(let text):
            switch type {
            case .array, .geopoint, .relation(_, toMany: true): return try JSONParser.parse(text)
            default: return .string(text)
            }
        }
    }

    @Test("every kind of stored value reads as GRDB's DatabaseValue read it, whatever the field's type")
    func sameAsDatabaseValue() throws {
        let database = try DatabaseQueue()
        let columns: [String] = [
            "NULL", "0", "1", "-9223372036854775808", "9223372036854775807", "2.5", "-0.0", "1e300",
            "''", "'plain'", "'naïve ünïcode 😀'", "'a' || char(0) || 'b'", "char(0)", "'[\"t01\",\"t08\"]'",
            "'{\"lat\":1.5,\"lon\":-2}'", "'[\"a\\\\\"b\", \"é\"]'", "x'00ff'", "x''", "'[]'",
        ]
        let types: [FieldType?] = [nil, .string, .integer, .float, .boolean, .array(.string), .geopoint, .relation(target: "tag", toMany: true), .relation(target: "tag", toMany: false), .binary]
        try database.read { db in
            let statement = try db.makeStatement(sql: "SELECT " + columns.joined(separator: ", "))
            #expect(sqlite3_step(statement.sqliteStatement) == SQLITE_ROW)
            for index in columns.indices {
                for type in types {
                    let expected = Result { try throughDatabaseValue(statement.sqliteStatement, CInt(index), type: type) }
                    let read = Result { try SQLiteValueMapping.jsonValue(column: CInt(index), of: statement.sqliteStatement, type: type) }
                    switch (expected, read) {
                    case (.success(let expected), .success(let read)):
                        #expect(read == expected, "\(columns[index]) as \(String(describing: type))")
                    case (.failure, .failure):
                        break  // text that is not JSON, in an array or geopoint field: an error both ways
                    default:
                        Issue.record("\(columns[index]) as \(String(describing: type)): \(expected) before, \(read) now")
                    }
                }
            }
        }
    }
}
