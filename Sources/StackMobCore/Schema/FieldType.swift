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
        default:
            guard name.hasPrefix("array["), name.hasSuffix("]"),
                let element = ArrayElementType(rawValue: String(name.dropFirst(6).dropLast()))
            else { return nil }
            self = .array(element)
        }
    }
}
