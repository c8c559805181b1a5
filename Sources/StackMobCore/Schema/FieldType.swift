/// The type of a schema field (PROTOCOL §4.10). Once a field has a type, writes are checked against it.
public enum FieldType: Sendable, Hashable {
    case string
    case integer
    case float
    case boolean
    case array(ArrayElementType)
    /// `{"lat": …, "lon": …}`.
    case geopoint
    /// A user schema's password: stored as a salted slow hash, never returned.
    case password
    /// A relationship to objects of `target` (PROTOCOL §6.1): one-to-one holds one primary key,
    /// one-to-many an array of primary keys (stored like an array of strings).
    case relation(target: String, toMany: Bool)
    /// A file (PROTOCOL §7): the value is the public URL string of the stored bytes.
    case binary

    public enum ArrayElementType: String, Sendable, Hashable {
        case string, integer, float, boolean
    }
}

extension FieldType {
    /// The name used in the schema registry and in `listapi`.
    public var name: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .float: "float"
        case .boolean: "boolean"
        case .array(let element): "array[\(element.rawValue)]"
        case .geopoint: "geopoint"
        case .password: "password"
        case .binary: "binary"
        case .relation(let target, let toMany): "\(toMany ? Self.oneToManyPrefix : Self.oneToOnePrefix)\(target)"
        }
    }

    public init?(name: String) {
        switch name {
        case "string": self = .string
        case "integer": self = .integer
        case "float": self = .float
        case "boolean": self = .boolean
        case "geopoint": self = .geopoint
        case "password": self = .password
        case "binary": self = .binary
        case _ where name.hasPrefix(Self.oneToOnePrefix):
            guard let target = Self.relationTarget(name, prefix: Self.oneToOnePrefix) else { return nil }
            self = .relation(target: target, toMany: false)
        case _ where name.hasPrefix(Self.oneToManyPrefix):
            guard let target = Self.relationTarget(name, prefix: Self.oneToManyPrefix) else { return nil }
            self = .relation(target: target, toMany: true)
        default:
            guard name.hasPrefix("array["), name.hasSuffix("]"),
                let element = ArrayElementType(rawValue: String(name.dropFirst(6).dropLast()))
            else { return nil }
            self = .array(element)
        }
    }
}

extension FieldType {
    // Registry names of relationships: `one_to_one:<schema>`, `one_to_many:<schema>`. Names written
    // before relationships existed never carry these prefixes, so old registries read unchanged.
    static let oneToOnePrefix = "one_to_one:"
    static let oneToManyPrefix = "one_to_many:"

    private static func relationTarget(_ name: String, prefix: String) -> String? {
        let target = String(name.dropFirst(prefix.count))
        return Identifier.isValidSchemaName(target) ? target : nil
    }

    /// The target schema of a relationship field.
    public var relationTarget: String? {
        if case .relation(let target, _) = self { return target }
        return nil
    }
}
