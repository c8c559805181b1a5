/// Validation of schema and field names taken from requests.
///
/// Names become SQLite identifiers, so they are restricted to what is safe and portable: lower-case
/// ASCII letters, digits and underscore, at most 64 characters. Schema names must also start with a
/// letter, which keeps them apart from the server's internal `_sm_` tables.
public enum Identifier {
    public static let maxLength = 64

    public static func isValidFieldName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maxLength && name.utf8.allSatisfy(isNameByte)
    }

    public static func isValidSchemaName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") else {
            return false
        }
        return isValidFieldName(name)
    }

    /// Schema names are case-insensitive on the wire (the JS SDK sends them verbatim) and stored
    /// lower-case.
    public static func schemaName(fromRequest raw: String) throws(DatastoreError) -> String {
        let name = raw.lowercased()
        guard isValidSchemaName(name) else { throw .invalidSchemaName(raw) }
        guard !isReservedSchemaName(name) else { throw .reservedSchemaName(name) }
        return name
    }

    /// Whether a valid name is taken: by the API, or by the storage engine (SQLite refuses to
    /// create a table whose name starts with `sqlite_`).
    public static func isReservedSchemaName(_ name: String) -> Bool {
        reservedSchemaNames.contains(name) || name.hasPrefix(reservedSchemaPrefix)
    }

    static let reservedSchemaPrefix = "sqlite_"


    /// Names the API itself answers at the top level (PROTOCOL §2.3, §13.2): a schema of that name
    /// could never be reached; `schemas` and `methods` are keys of `listapi`'s answer, beside
    /// every schema's name.
    public static let reservedSchemaNames: Set<String> = ["listapi", "schemas", "methods"]

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
