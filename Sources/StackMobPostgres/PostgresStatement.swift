import PostgresNIO
import StackMobCore

/// SQL text with `$n` placeholders and the values bound to them, built piece by piece.
///
/// Identifiers come only from names the domain validated (`Identifier`) and are always
/// double-quoted; every value is bound, never spliced into the text.
struct PostgresStatement {
    /// PostgreSQL cuts longer identifiers (NAMEDATALEN - 1) without an error.
    static let maxIdentifierBytes = 63

    var sql: String
    private(set) var binds = PostgresBindings()

    init(_ sql: String = "") {
        self.sql = sql
    }

    var query: PostgresQuery { PostgresQuery(unsafeSQL: sql, binds: binds) }

    /// Binds a JSON value and answers its placeholder. Arrays and objects are stored as their
    /// JSON text, like the SQLite engine does, so they come back byte for byte.
    mutating func bind(_ value: JSONValue) -> String {
        switch value {
        case .null: binds.appendNull()
        case .bool(let bool): binds.append(bool)
        case .integer(let integer): binds.append(integer)
        case .float(let double): binds.append(double)
        case .string(let string): binds.append(string)
        case .array, .object: binds.append(JSONWriter.string(value))
        }
        return "$\(binds.count)"
    }

    mutating func bind(_ string: String) -> String {
        binds.append(string)
        return "$\(binds.count)"
    }

    mutating func bind(_ integer: Int64) -> String {
        binds.append(integer)
        return "$\(binds.count)"
    }

    mutating func bind(_ double: Double) -> String {
        binds.append(double)
        return "$\(binds.count)"
    }

    /// Binds a `text[]`.
    mutating func bind(_ strings: [String]) -> String {
        binds.append(strings)
        return "$\(binds.count)"
    }

    mutating func bindOptional(_ string: String?) -> String {
        if let string { binds.append(string) } else { binds.appendNull() }
        return "$\(binds.count)"
    }

    mutating func bind(_ bytes: [UInt8]) -> String {
        binds.append(ByteBuffer(bytes: bytes))
        return "$\(binds.count)"
    }

    mutating func append(_ text: String) {
        sql += text
    }
}

func quote(_ identifier: String) -> String {
    "\"\(identifier)\""
}

/// A value for a fixed statement of the internal tables.
enum StoredValue {
    case text(String)
    case optionalText(String?)
    case integer(Int64)
    case bytes([UInt8])
}

extension PostgresStatement {
    /// A fixed statement whose `$n` placeholders take `values` in order.
    init(_ sql: String, _ values: [StoredValue]) {
        self.init(sql)
        for value in values {
            switch value {
            case .text(let text): _ = bind(text)
            case .optionalText(let text): _ = bindOptional(text)
            case .integer(let integer): _ = bind(integer)
            case .bytes(let bytes): _ = bind(bytes)
            }
        }
    }
}
