import Hummingbird
import NIOCore
import StackMobCore

/// Serves the local file store at `/_files/<environment>/<schema>/<id>/<field>/<filename>`
/// (PROTOCOL §7, D32). Before authentication: file URLs are public, a browser loads them in an
/// `<img>` without an API key. The type and disposition `FileDelivery` gives the stored type,
/// with `nosniff` and a sandbox CSP; `Content-Length`, `ETag`, `If-None-Match` and single byte
/// ranges. The bytes are streamed from disk in chunks on NIO's thread pool, so
/// a large file neither fills memory nor blocks an event loop.
struct FilesMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    static let pathPrefix = "/_files"
    let store: LocalFileStore
    let origin: StoredFileOrigin
    /// The sites served by host name on the API port: their origin is not the files' either.
    let sites: [HTML5SiteSettings]
    let fileIO = FileIO()
    /// The endpoints this middleware answers, for the route log.
    static let routes = ["GET", "HEAD"].map {
        RegisteredRoute(host: .api, method: $0, path: Self.pathPrefix + "/{environment}/{schema}/{id}/{field}/{filename}")
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard claims(request) else { return try await next(request, context) }
        return try await respond(to: request, context: context)
    }

    /// A download of a stored file.
    func claims(_ request: Request) -> Bool {
        (request.method == .get || request.method == .head) && request.uri.path.isPath(under: Self.pathPrefix)
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        let path = request.uri.path
        // On a site's host, to the files origin when there is one (without, the headers below
        // still keep the bytes inert there).
        if sites.contains(where: { $0.matches(host: request.head.authority) }), origin.hasBaseURL(forStoredPath: path),
            let location = origin.relocated(request, context: context)
        {
            return Response(status: .movedPermanently, headers: [.location: location, .cacheControl: "no-store"])
        }
        // `/_files/<environment>/<schema>/<id>/<field>/<filename>`: the server's own location
        // keeps the environment segment, which its default base URL ends with.
        let parts = path.dropFirst(Self.pathPrefix.count + 1).split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let environment = EnvironmentKind(rawValue: String(parts[0])),
            let key = FileKey(url: "http://files/" + String(parts[1]), environment: environment),
            key.path == String(path.dropFirst(Self.pathPrefix.count + 1)),
            let file = store.file(key)
        else {
            throw RequestError.routeNotFound(method: request.method.rawValue, path: path)
        }
        // Inert in a browser whatever the upload declared (`FileDelivery`).
        let delivery = FileDelivery(storedType: file.contentType, filename: key.filename)
        var headers: HTTPFields = [
            .contentType: delivery.contentType, .contentDisposition: delivery.disposition, .xContentTypeOptions: FileDelivery.noSniff,
            .contentSecurityPolicy: FileDelivery.contentSecurityPolicy, .eTag: file.etag, .acceptRanges: "bytes",
        ]
        if let match = request.headers[.ifNoneMatch], match == file.etag || match == "*" {
            return Response(status: .notModified, headers: [.eTag: file.etag, .xContentTypeOptions: FileDelivery.noSniff])
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
