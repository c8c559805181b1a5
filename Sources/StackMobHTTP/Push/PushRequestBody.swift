import Hummingbird
import StackMobCore

/// Reading push request bodies: JSON whatever the content type (PROTOCOL §2.8); an empty body
/// is an empty object where every field is optional.
enum PushRequestBody {
    /// The members that hold a notification's payload, which is stored as JSON text (U+0000
    /// escaped); every other member is a token, a user id or a flag.
    private static let payloadMembers: Set<String> = ["payload", "kvPairs"]

    static func object(_ request: Request, limit: Int) async throws -> JSONObject {
        let buffer = try await RequestBodyReader.bytes(request, limit: limit)
        guard buffer.readableBytesView.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return [:] }
        guard let object = try RequestBodyReader.parse(buffer).objectValue else { throw PushError.malformedRequest("the body must be a JSON object") }
        // Tokens and user ids are looked up and stored as text, which cannot hold U+0000.
        if object.contains(where: { !payloadMembers.contains($0.key) && FieldValueRules.containsNUL($0.value) }) {
            throw RequestError.containsNUL
        }
        return object
    }

    /// An optional string member; anything but a string or null is refused.
    static func string(_ object: JSONObject, _ key: String) throws(PushError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw .malformedRequest("\(key) must be a string")
        }
    }

    /// An optional boolean member; the strings "true" and "false" count (form-minded clients).
    static func bool(_ object: JSONObject, _ key: String) throws(PushError) -> Bool? {
        switch object[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case .string("true")?: return true
        case .string("false")?: return false
        default: throw .malformedRequest("\(key) must be true or false")
        }
    }

    /// A list of strings (user ids).
    static func strings(_ value: JSONValue?, _ key: String) throws(PushError) -> [String] {
        guard let elements = value?.arrayValue else { throw .malformedRequest("\(key) must be an array of strings") }
        var strings: [String] = []
        for element in elements {
            guard let string = element.stringValue else { throw .malformedRequest("\(key) must be an array of strings") }
            strings.append(string)
        }
        return strings
    }

    /// A list of `{"type", "token"}` objects.
    static func tokens(_ value: JSONValue?, _ key: String) throws(PushError) -> [PushToken] {
        guard let elements = value?.arrayValue else { throw .malformedRequest("\(key) must be an array of {\"type\", \"token\"} objects") }
        return try elements.map { element throws(PushError) in try PushToken(json: element) }
    }

    /// The payload object.
    static func payload(_ value: JSONValue?, _ key: String) throws(PushError) -> PushPayload {
        guard let object = value?.objectValue else { throw .malformedRequest("\(key) must be a JSON object") }
        return try PushPayload(object)
    }
}
