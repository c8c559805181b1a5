import GRDB
import StackMobCore
@testable import StackMobSQLite
import Testing

/// `SQLiteRowDecoder` reads each row of a statement into its own object: a member for each
/// non-NULL field column, none for a NULL one or a skipped column (a page's total).
@Suite("SQLite row decoding")
struct RowDecoderTests {
    @Test("rows with NULLs in any columns read as objects without those members, each row its own object")
    func nullColumnsAndSkippedColumns() throws {
        let database = try DatabaseQueue()
        let schema = SchemaDefinition(
            name: "thing", primaryKey: "thing_id",
            fields: ["thing_id": .string, "n": .integer, "flag": .boolean, "tags": .array(.string), "a_rather_long_field_name": .string])
        let rows: [(values: String, expected: JSONObject)] = [
            ("'t1', 1, 1, '[\"x\"]', 'long'", ["thing_id": "t1", "n": 1, "flag": true, "tags": ["x"], "a_rather_long_field_name": "long"]),
            ("'t2', NULL, 0, NULL, 'only'", ["thing_id": "t2", "flag": false, "a_rather_long_field_name": "only"]),
            ("'t3', NULL, NULL, NULL, NULL", ["thing_id": "t3"]),
            ("'t4', 4, NULL, '[]', NULL", ["thing_id": "t4", "n": 4, "tags": []]),
            ("'t5', 5, 1, '[\"y\",\"z\"]', 'last'", ["thing_id": "t5", "n": 5, "flag": true, "tags": ["y", "z"], "a_rather_long_field_name": "last"]),
        ]
        try database.write { db in
            try db.execute(sql: "CREATE TABLE thing (thing_id TEXT PRIMARY KEY, n INTEGER, flag INTEGER, tags TEXT, a_rather_long_field_name TEXT)")
            for row in rows {
                try db.execute(sql: "INSERT INTO thing VALUES (\(row.values))")
            }
        }
        try database.read { db in
            // A page's total beside the fields, as the page query selects it, and skipped.
            let statement = try db.makeStatement(sql: "SELECT *, COUNT(*) OVER () AS _total FROM thing ORDER BY thing_id")
            var totals: [Int?] = []
            var objects = try SQLiteRowDecoder.objects(statement, arguments: [], schema: schema, skipping: ["_total"], inline: false) { extras, _ in
                totals.append(extras.integer("_total"))
                #expect(extras.double("_total") == 5 && extras.integer("thing_id") == nil, "a field is not an extra column")
            }
            #expect(objects == rows.map(\.expected))
            #expect(objects.allSatisfy { $0["_total"] == nil } && totals == Array(repeating: 5, count: 5))
            // Changing one object leaves the others, and the next statement run, as they were.
            objects[0]["n"] = 99
            objects[1]["extra"] = "e"
            #expect(objects[2] == rows[2].expected && objects[3] == rows[3].expected)
            // Arguments are checked as GRDB's cursors check them, and the statement stays usable.
            #expect(throws: DatabaseError.self) { try SQLiteRowDecoder.objects(statement, arguments: [1], schema: schema, inline: false) }
            let again = try SQLiteRowDecoder.objects(statement, arguments: [], schema: schema, skipping: ["_total"], inline: false)
            #expect(again == rows.map(\.expected))
        }
    }
}
