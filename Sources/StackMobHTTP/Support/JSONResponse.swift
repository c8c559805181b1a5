import Hummingbird
import NIOCore
import StackMobCore

/// Responses with StackMob's JSON conventions (PROTOCOL §1.4).
enum JSONResponse {
    static let contentType = "application/json; charset=utf-8"

    static func make(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        response(JSONWriter.withBytes(value) { ByteBuffer(bytes: $0) }, status: status, headers: headers)
    }

    /// `make` for an answer whose size the request decides when it was expanded (`depth` > 0,
    /// PROTOCOL §5.5): refused with `responseTooLarge` once its text passes `limit` bytes, so
    /// that one request never holds more than that, whatever is stored. Without expansion an
    /// answer holds each stored object once, and its size is the data's.
    static func make(
        _ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], expandedBy depth: Int, limit: Int
    ) throws(RequestError) -> Response {
        guard depth > 0 else { return make(value, status: status, headers: headers) }
        guard let body = JSONWriter.withBytes(value, limit: limit, { ByteBuffer(bytes: $0) }) else { throw .responseTooLarge(limit: limit) }
        return response(body, status: status, headers: headers)
    }

    private static func response(_ body: ByteBuffer, status: HTTPResponse.Status, headers: HTTPFields) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: status, headers: fields, body: .init(byteBuffer: body))
    }

    /// A status with no body, for HEAD requests.
    static func empty(_ status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentLength: "0"])
    }
}
