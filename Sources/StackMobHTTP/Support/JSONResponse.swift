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

    /// A status with no body, for HEAD requests.
    static func empty(_ status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentLength: "0"])
    }
}
