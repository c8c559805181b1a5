import NIOCore
import PostgresNIO
import StackMobCore

/// Reads the rows of one statement as objects of one schema, NULL columns left out: the
/// PostgreSQL side of `SQLiteRowDecoder`.
///
/// Made once per statement from its first row's columns, so that which columns are fields, of
/// which type, and in which order their names sort are settled once rather than looked up by name
/// for every column of every row; each row's values are then appended to its object in key order
/// (`JSONObject.append(_:forKeyAfterAll:)`). An expanded page reads some 240 rows, and the
/// lookups, the insertions in place and postgres-nio's generic decoding were a seventh of the
/// server's CPU for it (docs/benchmarks.md, "Figures behind design choices").
struct PostgresRowDecoder {
    /// How a column's values become JSON: by the column's type on the wire and the field's type
    /// in the schema (`PostgresValueMapping.columnType`).
    enum Reading {
        case integer, integerAsFloat, float, boolean, text, json

        init(_ dataType: PostgresDataType, field: FieldType?) {
            switch dataType {
            case .int8, .int4, .int2: self = field == .float ? .integerAsFloat : .integer
            case .float8, .float4: self = .float
            case .bool: self = .boolean
            default:
                switch field {
                case .array, .geopoint, .relation(_, toMany: true): self = .json
                default: self = .text
                }
            }
        }
    }

    /// A column that is a field, and how it is read. A struct rather than a tuple: an array of
    /// tuples is copied and destroyed through the runtime's generic tuple witnesses.
    private struct Field {
        let column: Int
        let key: JSONObject.PreparedKey
        let reading: Reading
        /// The column's type and format on the wire, the same in every row of a statement.
        let dataType: PostgresDataType
        let isBinary: Bool
    }

    /// The columns that are fields, in the byte order of their names.
    private let fields: [Field]
    /// The columns that are not fields, which the caller reads (`object(from:extra:)`).
    private let extras: [Int]

    /// - Parameter skipping: columns the statement selects besides the fields (a page's total,
    ///   a distance), which the caller reads by name (`object(from:extra:)`).
    init(columnsOf row: some Collection<PostgresCell>, schema: SchemaDefinition, skipping: [String] = []) {
        var fields: [Field] = []
        var extras: [Int] = []
        fields.reserveCapacity(row.count)
        for (column, cell) in row.enumerated() {
            // Not a field, and read by no one: PostgreSQL's count of a limited read's bytes.
            if cell.columnName == RowsWithinBytes.bytesBefore { continue }
            if skipping.contains(cell.columnName) {
                extras.append(column)
                continue
            }
            let reading = Reading(cell.dataType, field: schema.type(of: cell.columnName))
            fields.append(
                Field(column: column, key: JSONObject.PreparedKey(cell.columnName), reading: reading, dataType: cell.dataType, isBinary: cell.format == .binary))
        }
        fields.sort { $0.key < $1.key }
        self.fields = fields
        self.extras = extras
    }

    /// Every row of `rows` as an object.
    static func objects(_ rows: [PostgresRow], schema: SchemaDefinition) throws -> [JSONObject] {
        guard let first = rows.first else { return [] }
        let decoder = PostgresRowDecoder(columnsOf: first, schema: schema)
        return try rows.map { try decoder.object(from: $0) }
    }

    /// Every row of `rows`, already random-access (`PostgresPool.execute(_:on:byteLimit:)`), as
    /// an object.
    static func objects(_ rows: [PostgresRandomAccessRow], schema: SchemaDefinition) throws -> [JSONObject] {
        guard let first = rows.first else { return [] }
        let decoder = PostgresRowDecoder(columnsOf: first, schema: schema)
        return try rows.map { try decoder.object(from: $0) }
    }

    /// The row's object; `extra` is handed each of the row's columns that is not a field.
    ///
    /// A field's bytes are taken alone (`subscript(data:)`): a `PostgresCell` carries its
    /// column's name too, retained and released for every cell of every row. The type and format
    /// a cell would carry are the field's, the same in every row of a statement. The other
    /// columns come from the same random-access row, which a page with its total used to make a
    /// second time for each row (docs/benchmarks.md, "Figures behind design choices").
    func object(from row: PostgresRow, extra: (PostgresCell) throws -> Void = { _ in }) throws -> JSONObject {
        try object(from: PostgresRandomAccessRow(row), extra: extra)
    }

    /// `object(from:extra:)` of a row already random-access.
    func object(from cells: PostgresRandomAccessRow, extra: (PostgresCell) throws -> Void = { _ in }) throws -> JSONObject {
        var object = JSONObject(minimumCapacity: fields.count)
        for field in fields {
            if let value = try Self.value(of: cells[data: field.column].value, field: field, in: cells) {
                object.append(value, forKeyAfterAll: field.key)
            }
        }
        for column in extras { try extra(cells[column]) }
        return object
    }

    /// The field's JSON value from its bytes; nil for NULL. postgres-nio asks for every result
    /// in binary format: integers and floats big-endian, booleans one byte, text its UTF-8
    /// bytes. Those are read here directly; `PostgresCell.decode` reaches the same answer
    /// through a generic decoder with a context per call. A cell in text format goes through it.
    private static func value(of bytes: ByteBuffer?, field: Field, in cells: PostgresRandomAccessRow) throws -> JSONValue? {
        guard let bytes else { return nil }
        let reading = field.reading
        guard field.isBinary else { return try decoded(cells[field.column], reading: reading) }
        switch (reading, field.dataType, bytes.readableBytes) {
        case (.integer, .int8, 8), (.integerAsFloat, .int8, 8):
            let integer = bytes.getInteger(at: bytes.readerIndex, as: Int64.self)!
            return reading == .integer ? .integer(integer) : .float(Double(integer))
        case (.float, .float8, 8):
            return .float(Double(bitPattern: bytes.getInteger(at: bytes.readerIndex, as: UInt64.self)!))
        case (.boolean, .bool, 1):
            return .bool(bytes.getInteger(at: bytes.readerIndex, as: UInt8.self)! != 0)
        case (.text, .text, _), (.text, .varchar, _):
            return .string(String(buffer: bytes))
        case (.json, .text, _), (.json, .varchar, _):
            return try JSONParser.parse(String(buffer: bytes))
        default:
            return try decoded(cells[field.column], reading: reading)
        }
    }

    /// Through postgres-nio's decoding: other widths (`int4`, `float4`), other column types read
    /// as text, the text format.
    private static func decoded(_ cell: PostgresCell, reading: Reading) throws -> JSONValue? {
        switch reading {
        case .integer: return .integer(try cell.decode(Int64.self))
        case .integerAsFloat: return .float(Double(try cell.decode(Int64.self)))
        case .float: return .float(try cell.decode(Double.self))
        case .boolean: return .bool(try cell.decode(Bool.self))
        case .text: return .string(try cell.decode(String.self))
        case .json: return try JSONParser.parse(try cell.decode(String.self))
        }
    }
}
