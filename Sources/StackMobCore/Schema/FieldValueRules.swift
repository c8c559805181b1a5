/// How JSON values map onto field types: inference for new fields (development) and
/// conformance checks for existing ones (PROTOCOL §4.10).
public enum FieldValueRules {
    public enum Inference: Equatable, Sendable {
        case type(FieldType)
        /// `null` says nothing about a type; the field is not created.
        case noType
        /// An object that is not a geopoint: needs an `X-StackMob-Relations` entry.
        case subObject
        /// An array mixing element types.
        case mixedArray
    }

    public static func infer(_ value: JSONValue) -> Inference {
        switch value {
        case .null: return .noType
        case .string: return .type(.string)
        case .integer: return .type(.integer)
        case .float: return .type(.float)
        case .bool: return .type(.boolean)
        case .object(let object):
            return isGeopointShape(object) ? .type(.geopoint) : .subObject
        case .array(let elements):
            guard let element = inferElementType(elements) else { return .mixedArray }
            return .type(.array(element))
        }
    }

    /// The stored form of `value` in a field of `type`, or nil when it does not fit.
    /// An integer fits a float field (and is stored as a float); nothing else is converted.
    public static func conform(_ value: JSONValue, to type: FieldType) -> JSONValue? {
        switch (type, value) {
        case (.string, .string), (.password, .string), (.binary, .string), (.integer, .integer), (.float, .float), (.boolean, .bool):
            return value
        case (.float, .integer(let integer)):
            return .float(Double(integer))
        case (.geopoint, .object(let object)):
            guard isGeopointShape(object), let lat = object["lat"]?.numberValue, let lon = object["lon"]?.numberValue,
                (-90...90).contains(lat), (-180...180).contains(lon)
            else { return nil }
            return .object(["lat": .float(lat), "lon": .float(lon)])
        case (.relation(_, toMany: false), .string(let id)) where !id.isEmpty:
            return value
        case (.relation(_, toMany: true), .array(let elements)):
            // Relations hold each id once, in first-seen order (PROTOCOL §6.3).
            var seen = Set<String>()
            var ids: [JSONValue] = []
            for element in elements {
                guard case .string(let id) = element, !id.isEmpty else { return nil }
                if seen.insert(id).inserted { ids.append(element) }
            }
            return .array(ids)
        case (.array(let element), .array(let elements)):
            var conformed: [JSONValue] = []
            conformed.reserveCapacity(elements.count)
            for item in elements {
                guard let fitted = conform(item, to: element.scalarType) else { return nil }
                conformed.append(fitted)
            }
            return .array(conformed)
        default:
            return nil
        }
    }

    /// Whether a string anywhere in `value` (in an array, in an object's values) holds U+0000.
    /// PostgreSQL's `text` cannot hold it and SQLite's text binding ends at it, so such a value
    /// is refused before it is stored, on every engine alike.
    public static func containsNUL(_ value: JSONValue) -> Bool {
        switch value {
        case .null, .bool, .integer, .float: false
        case .string(let string): containsNUL(string)
        case .array(let elements): elements.contains(where: containsNUL)
        case .object(let object): object.values.contains(where: containsNUL)
        }
    }

    public static func containsNUL(_ string: String) -> Bool {
        string.utf8.contains(0)
    }

    private static func isGeopointShape(_ object: JSONObject) -> Bool {
        object.count == 2 && object["lat"]?.numberValue != nil && object["lon"]?.numberValue != nil
    }

    /// An empty array infers an array of strings: the commonest case in the SDKs' models.
    private static func inferElementType(_ elements: [JSONValue]) -> FieldType.ArrayElementType? {
        var inferred: FieldType.ArrayElementType?
        for element in elements {
            let type: FieldType.ArrayElementType
            switch element {
            case .string: type = .string
            case .integer: type = .integer
            case .float: type = .float
            case .bool: type = .boolean
            default: return nil
            }
            switch (inferred, type) {
            case (nil, _): inferred = type
            case (let current?, _) where current == type: break
            case (.integer, .float), (.float, .integer): inferred = .float
            default: return nil
            }
        }
        return inferred ?? .string
    }
}

extension FieldType.ArrayElementType {
    var scalarType: FieldType {
        switch self {
        case .string: .string
        case .integer: .integer
        case .float: .float
        case .boolean: .boolean
        }
    }
}
