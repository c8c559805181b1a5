import Hummingbird
import NIOCore
import StackMobCore

/// Serves the local file store at `/_files/<environment>/<schema>/<id>/<field>/<filename>`
/// (PROTOCOL §7, D32). Before authentication: file URLs are public, a browser loads them in an
/// `<img>` without an API key. Stored content type, `Content-Length`, `ETag`, `If-None-Match`
/// and single byte ranges.
struct FilesMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    let store: LocalFileStore

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix(FileURLBase.pathPrefix + "/"), request.method == .get || request.method == .head else {
            return try await next(request, context)
        }
        guard let key = FileKey(url: "http://files" + path), let file = store.read(key) else {
            throw RequestError.routeNotFound(method: request.method.rawValue, path: path)
        }
        var headers: HTTPFields = [.contentType: file.contentType, .eTag: file.etag, .acceptRanges: "bytes"]
        if let match = request.headers[.ifNoneMatch], match == file.etag || match == "*" {
            return Response(status: .notModified, headers: [.eTag: file.etag])
        }
        let size = file.bytes.count
        let status: HTTPResponse.Status
        let body: ArraySlice<UInt8>
        switch ByteRange.parse(request.headers[.range], size: size) {
        case .whole:
            status = .ok
            body = file.bytes[...]
        case .partial(let range):
            status = .partialContent
            body = file.bytes[range]
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
        case .unsatisfiable:
            return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(size)", .contentLength: "0"])
        }
        headers[.contentLength] = String(body.count)
        if request.method == .head {
            return Response(status: status, headers: headers)
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
