import GRDB
import GRDBSQLite
import StackMobCore
@testable import StackMobSQLite
import Testing

/// Columns are read straight from SQLite (`SQLiteValueMapping.jsonValue(column:of:type:)`), not
/// through GRDB's `DatabaseValue`; every kind of stored value must read as it did through it, but
/// text holding U+0000, which `DatabaseValue` cut at the first NUL and which now reads whole.
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
            "''", "'plain'", "'naïve ünïcode 😀'", "'[\"t01\",\"t08\"]'",
            "'{\"lat\":1.5,\"lon\":-2}'", "'[\"a\\\\\"b\", \"é\"]'", "x'00ff'", "x''", "'[]'",
        ]
        let types: [FieldType?] = [nil, .string, .integer, .float, .boolean, .array(.string), .geopoint, .relation(target: "tag", toMany: true), .relation(target: "tag", toMany: false), .binary]
        try database.read { db in
            let statement = try db.makeStatement(sql: "SELECT " + columns.joined(separator: ", "))
            #expect(sqlite3_step(statement.sqliteStatement) == SQLITE_ROW)
            for index in columns.indices {
                for type in types {
                    let expected = Result { try throughDatabaseValue(statement.sqliteStatement, CInt(index), type: type) }
                    let read = Result { try SQLiteValueMapping.jsonValue(column: CInt(index), of: statement.sqliteStatement, reading: .init(type)) }
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

    @Test("text holding U+0000 reads whole, where GRDB's DatabaseValue stopped at the first NUL")
    func textWithNUL() throws {
        let database = try DatabaseQueue()
        try database.read { db in
            let statement = try db.makeStatement(
                sql: "SELECT 'a' || char(0) || 'b', char(0), '[\"a\\u0000b\"]', '[\"a' || char(0) || 'b\"]'")
            #expect(sqlite3_step(statement.sqliteStatement) == SQLITE_ROW)
            func read(_ index: CInt, _ type: FieldType?) throws -> JSONValue? {
                try SQLiteValueMapping.jsonValue(column: index, of: statement.sqliteStatement, reading: .init(type))
            }
            for type: FieldType? in [nil, .string, .password, .binary, .relation(target: "tag", toMany: false)] {
                let value = try read(0, type)
                #expect(value == .string("a\u{0}b"), "\(String(describing: type))")
                #expect(value?.stringValue?.unicodeScalars.map(\.value) == [0x61, 0, 0x62])
                #expect(try read(1, type) == .string("\u{0}"))
            }
            // An array's JSON text holds U+0000 escaped: it always read whole.
            #expect(try read(2, .array(.string)) == .array(["a\u{0}b"]))
            // A raw NUL in a JSON string is a control character: not JSON, then as now.
            #expect(throws: JSONParseError.self) { try read(3, .array(.string)) }
        }
    }
}
