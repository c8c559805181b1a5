import PostgresNIO
import StackMobCore

/// How typed field values are stored in PostgreSQL columns and read back.
///
/// Scalars use PostgreSQL's own types; arrays, geopoints and one-to-many relations are stored as
/// JSON text, as on SQLite, and queried through `::jsonb`. Text columns use the "C" collation,
/// so that ordering is by code point, as SQLite orders.
enum PostgresValueMapping {
    static func columnType(_ type: FieldType) -> String {
        switch type {
        case .string, .password, .array, .geopoint, .relation, .binary: "TEXT COLLATE \"C\""
        case .integer: "BIGINT"
        case .boolean: "BOOLEAN"
        case .float: "DOUBLE PRECISION"
        }
    }

    /// A row of a schema table as the object the domain stores (NULL columns left out).
    static func object(from row: PostgresRow, schema: SchemaDefinition, skipping extra: Set<String> = []) throws -> JSONObject {
        var object = JSONObject(minimumCapacity: 8)
        for cell in row where !extra.contains(cell.columnName) {
            if let value = try jsonValue(cell, schema: schema) {
                object[cell.columnName] = value
            }
        }
        return object
    }

    static func jsonValue(_ cell: PostgresCell, schema: SchemaDefinition) throws -> JSONValue? {
        guard cell.bytes != nil else { return nil }
        switch cell.dataType {
        case .int8, .int4, .int2:
            let integer = try cell.decode(Int64.self)
            return schema.type(of: cell.columnName) == .float ? .float(Double(integer)) : .integer(integer)
        case .float8, .float4:
            return .float(try cell.decode(Double.self))
        case .bool:
            return .bool(try cell.decode(Bool.self))
        default:
            let text = try cell.decode(String.self)
            switch schema.type(of: cell.columnName) {
            case .array, .geopoint, .relation(_, toMany: true): return try JSONParser.parse(text)
            default: return .string(text)
            }
        }
    }
}
