import Hummingbird
import NIOCore
import StackMobCore

/// Responses with StackMob's JSON conventions (PROTOCOL §1.4).
enum JSONResponse {
    static let contentType = "application/json; charset=utf-8"

    static func make(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        let body = JSONWriter.withBytes(value) { ByteBuffer(bytes: $0) }
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: status, headers: fields, body: .init(byteBuffer: body))
    }

    /// `make` for an answer whose size the request decides (expansion, PROTOCOL §5.5): refused
    /// with `responseTooLarge` once its text passes `limit` bytes, so that one request never
    /// holds more than that, whatever is stored.
    static func make(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], limit: Int) throws(RequestError) -> Response {
        guard let body = JSONWriter.withBytes(value, limit: limit, { ByteBuffer(bytes: $0) }) else {
            throw .responseTooLarge(limit: limit)
        }
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: status, headers: fields, body: .init(byteBuffer: body))
    }

    /// `make`, bounded by `limit` when the answer was expanded (`depth` > 0): without
    /// expansion an answer holds each stored object once, and its size is the data's.
    static func make(
        _ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], expandedBy depth: Int, limit: Int
    ) throws(RequestError) -> Response {
        depth > 0 ? try make(value, status: status, headers: headers, limit: limit) : make(value, status: status, headers: headers)
    }

    /// A status with no body, for HEAD requests.
    static func empty(_ status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentLength: "0"])
    }
}
