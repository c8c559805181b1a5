import Hummingbird
import NIOCore
import StackMobCore

/// Serves the local file store at `/_files/<environment>/<schema>/<id>/<field>/<filename>`
/// (PROTOCOL §7, D32). Before authentication: file URLs are public, a browser loads them in an
/// `<img>` without an API key. Stored content type, `Content-Length`, `ETag`, `If-None-Match`
/// and single byte ranges. The bytes are streamed from disk in chunks on NIO's thread pool, so
/// a large file neither fills memory nor blocks an event loop.
struct FilesMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    let store: LocalFileStore
    let fileIO = FileIO()
    /// The endpoints this middleware answers, for the route log.
    static let routes = ["GET", "HEAD"].map {
        RegisteredRoute(host: .api, method: $0, path: FileURLBase.pathPrefix + "/{environment}/{schema}/{id}/{field}/{filename}")
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard claims(request) else { return try await next(request, context) }
        return try await respond(to: request, context: context)
    }

    /// A download of a stored file.
    func claims(_ request: Request) -> Bool {
        request.uri.path.hasPrefix(FileURLBase.pathPrefix + "/") && (request.method == .get || request.method == .head)
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        let path = request.uri.path
        // `/_files/<environment>/<schema>/<id>/<field>/<filename>`: the server's own location
        // keeps the environment segment, which its default base URL ends with.
        let parts = path.dropFirst(FileURLBase.pathPrefix.count + 1).split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let environment = EnvironmentKind(rawValue: String(parts[0])),
            let key = FileKey(url: "http://files/" + String(parts[1]), environment: environment),
            key.path == String(path.dropFirst(FileURLBase.pathPrefix.count + 1)),
            let file = store.file(key)
        else {
            throw RequestError.routeNotFound(method: request.method.rawValue, path: path)
        }
        var headers: HTTPFields = [.contentType: file.contentType, .eTag: file.etag, .acceptRanges: "bytes"]
        if let match = request.headers[.ifNoneMatch], match == file.etag || match == "*" {
            return Response(status: .notModified, headers: [.eTag: file.etag])
        }
        let range: ClosedRange<Int>?
        switch ByteRange.parse(request.headers[.range], size: file.size) {
        case .whole:
            range = nil
        case .partial(let partial):
            range = partial
            headers[.contentRange] = "bytes \(partial.lowerBound)-\(partial.upperBound)/\(file.size)"
        case .unsatisfiable:
            return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(file.size)", .contentLength: "0"])
        }
        let status: HTTPResponse.Status = range == nil ? .ok : .partialContent
        headers[.contentLength] = String(range?.count ?? file.size)
        if request.method == .head {
            return Response(status: status, headers: headers)
        }
        let body =
            if let range {
                try await fileIO.loadFile(path: file.path, range: range, context: context)
            } else {
                try await fileIO.loadFile(path: file.path, context: context)
            }
        return Response(status: status, headers: headers, body: body)
    }
}
