import PostgresNIO
import StackMobCore

/// How typed field values are stored in PostgreSQL columns (`PostgresRowDecoder` reads them back).
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

    /// Whether `columnType` is text: every type but the numbers and booleans.
    static func isText(_ type: FieldType) -> Bool {
        switch type {
        case .integer, .boolean, .float: false
        case .string, .password, .array, .geopoint, .relation, .binary: true
        }
    }
}
