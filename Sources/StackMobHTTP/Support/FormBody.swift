import Foundation
import Hummingbird
import NIOCore
import StackMobCore

/// The parameters of a token request (PROTOCOL §8.2, §8.3): an
/// `application/x-www-form-urlencoded` body (keys may be percent-encoded, `+` is a space), or a
/// JSON object as fallback, plus the query string (the documented GET variant).
enum FormBody {
    static func parameters(_ request: Request, limit: Int) async throws -> [String: String] {
        var parameters: [String: String] = [:]
        for (key, value) in try QueryString.parameters(request.uri.query) {
            parameters[key] = value
        }
        let buffer = try await RequestBodyReader.bytes(request, limit: limit)
        parameters.merge(try Self.parameters(body: Array(buffer.readableBytesView))) { _, fromBody in fromBody }
        return parameters
    }

    /// The parameters of a body alone: a JSON object's scalar members, or form-encoded pairs (a
    /// repeated key keeps its last value); none for a blank body. A key or value holding U+0000
    /// (`%00`, `\u0000`) is refused: these are logins, tokens and ids to look up, which no
    /// engine can match (the query string's are refused by `NULMiddleware`).
    static func parameters(body bytes: [UInt8]) throws(RequestError) -> [String: String] {
        let parameters = try decode(body: bytes)
        if parameters.contains(where: { FieldValueRules.containsNUL($0.key) || FieldValueRules.containsNUL($0.value) }) { throw .containsNUL }
        return parameters
    }

    private static func decode(body bytes: [UInt8]) throws(RequestError) -> [String: String] {
        var parameters: [String: String] = [:]
        guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return parameters }
        if first == UInt8(ascii: "{") {
            let parsed: JSONValue
            do {
                parsed = try JSONParser.parse(bytes, options: .requestBody)
            } catch {
                throw .malformedJSON("\(error)")
            }
            guard let object = parsed.objectValue else { throw .malformedJSON("expected an object") }
            for (key, value) in object {
                switch value {
                case .string(let text): parameters[key] = text
                case .integer(let number): parameters[key] = String(number)
                case .float(let number): parameters[key] = String(number)
                case .bool(let flag): parameters[key] = String(flag)
                case .null, .array, .object: continue
                }
            }
            return parameters
        }
        for pair in String(decoding: bytes, as: UTF8.self).split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = try PathSegment.decode(parts[0].trimmingCharacters(in: .whitespacesAndNewlines), plusAsSpace: true)
            let value = parts.count > 1 ? try PathSegment.decode(parts[1].trimmingCharacters(in: .whitespacesAndNewlines), plusAsSpace: true) : ""
            parameters[key] = value
        }
        return parameters
    }
}
