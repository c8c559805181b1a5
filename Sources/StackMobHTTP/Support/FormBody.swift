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
        let bytes = Array(buffer.readableBytesView)
        guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return parameters }
        if first == UInt8(ascii: "{") {
            let object: JSONObject
            do {
                guard let parsed = try JSONParser.parse(bytes).objectValue else { throw RequestError.malformedJSON("expected an object") }
                object = parsed
            } catch let error as RequestError {
                throw error
            } catch {
                throw RequestError.malformedJSON("\(error)")
            }
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
