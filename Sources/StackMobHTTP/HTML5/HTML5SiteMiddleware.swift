import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StackMobCore
import StackMobHTTPServer

/// Serves one environment's deployed HTML5 app from its current version (`HTML5Deployments`):
/// content types by extension, `index.html` for directories, `ETag`/`Last-Modified` and 304,
/// single byte ranges, the deploy-time gzip copy when the client accepts gzip, `nosniff`. Never a
/// directory listing, never a file outside the version (`SitePath`). The last middleware of its
/// router: it always answers.
struct HTML5SiteMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    let kind: EnvironmentKind
    let deployments: HTML5Deployments
    let spaFallback: Bool
    let fileIO = FileIO()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let rawPath = request.uri.path
        guard request.method == .get || request.method == .head else {
            throw HTML5Error.methodNotAllowed(request.method.rawValue)
        }
        let path = try SitePath(rawPath)
        // Resolved once: every file of this request comes from the same version.
        guard let version = deployments.current(kind) else { throw HTML5Error.nothingDeployed(kind) }
        var relative = path.segments
        switch Self.kind(of: version.site, relative) {
        case .file:
            break
        case .directory where !path.isDirectory:
            // `/docs` → `/docs/`, so the page's relative links resolve inside the directory.
            // One leading slash: `//host/` would be another site to the browser.
            let location = "/" + rawPath.drop(while: { $0 == "/" }) + "/" + (request.uri.query.map { "?" + $0 } ?? "")
            return Response(status: .movedPermanently, headers: [.location: location, .contentLength: "0"])
        case .directory where Self.kind(of: version.site, relative + ["index.html"]) == .file:
            relative.append("index.html")
        case .directory, .missing:
            guard spaFallback, path.looksLikePage, Self.kind(of: version.site, ["index.html"]) == .file else {
                throw HTML5Error.fileNotFound(rawPath)
            }
            relative = ["index.html"]
        }
        return try await serve(relative, of: version, request: request, context: context)
    }

    private func serve(_ relative: [String], of version: HTML5Version, request: Request, context: Context) async throws -> Response {
        let identity = Self.file(version.site, relative)
        guard let stat = Self.stat(identity) else { throw HTML5Error.fileNotFound(request.uri.path) }
        let gzipPath = Self.file(version.gzip, relative)
        let gzipStat = Self.stat(gzipPath)
        let lastModified = HTTPDate.format(secondsSince1970: stat.modified)
        let etag = "\"\(version.number)-\(String(stat.size, radix: 16))-\(String(stat.modified, radix: 16))\""
        let wantsRange = request.headers[.range] != nil && (request.headers[.ifRange].map { $0 == etag || $0 == lastModified } ?? true)
        let gzip = gzipStat != nil && !wantsRange && Self.acceptsGzip(request.headers[.acceptEncoding])
        var headers: HTTPFields = [
            .contentType: StaticContentType.of(fileName: relative.last ?? ""),
            .eTag: gzip ? String(etag.dropLast()) + "-gz\"" : etag,
            .lastModified: lastModified,
            .acceptRanges: "bytes",
            .xContentTypeOptions: "nosniff",
            // Revalidated on every use: a deploy shows at once, and an unchanged file costs a 304.
            .cacheControl: "no-cache",
        ]
        if gzipStat != nil { headers[.vary] = "Accept-Encoding" }
        if Self.matches(request.headers[.ifNoneMatch], etag: etag) || (request.headers[.ifNoneMatch] == nil && request.headers[.ifModifiedSince] == lastModified) {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        let path = gzip ? gzipPath : identity
        let size = gzip ? gzipStat!.size : stat.size
        if gzip { headers[.contentEncoding] = "gzip" }
        var range: ClosedRange<Int>?
        if wantsRange {
            switch ByteRange.parse(request.headers[.range], size: size) {
            case .whole: break
            case .partial(let partial):
                range = partial
                headers[.contentRange] = "bytes \(partial.lowerBound)-\(partial.upperBound)/\(size)"
            case .unsatisfiable:
                return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(size)", .contentLength: "0", .xContentTypeOptions: "nosniff"])
            }
        }
        headers[.contentLength] = String(range?.count ?? size)
        let status: HTTPResponse.Status = range == nil ? .ok : .partialContent
        guard request.method == .get, size > 0 else { return Response(status: status, headers: headers) }
        let body =
            if let range {
                try await fileIO.loadFile(path: path, range: range, context: context)
            } else {
                try await fileIO.loadFile(path: path, context: context)
            }
        return Response(status: status, headers: headers, body: body)
    }

    // MARK: - Files

    enum Kind { case file, directory, missing }

    /// `lstat`, not `stat`: a deployed version holds no symbolic links, and one found anyway is
    /// not followed.
    static func kind(of root: URL, _ relative: [String]) -> Kind {
        switch (try? FileManager.default.attributesOfItem(atPath: file(root, relative)))?[.type] as? FileAttributeType {
        case .typeRegular?: .file
        case .typeDirectory?: .directory
        default: .missing
        }
    }

    static func file(_ root: URL, _ relative: [String]) -> String {
        relative.reduce(root) { $0.appendingPathComponent($1) }.path
    }

    static func stat(_ path: String) -> (size: Int, modified: Int)? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path), attributes[.type] as? FileAttributeType == .typeRegular,
            let size = attributes[.size] as? Int, let modified = attributes[.modificationDate] as? Date
        else { return nil }
        return (size, Int(modified.timeIntervalSince1970))
    }

    // MARK: - Headers

    /// `If-None-Match`: a list of tags or `*`, compared weakly (RFC 9110 §13.1.2); the gzip
    /// copy's tag matches the file's too, since both stand for the same content.
    static func matches(_ header: String?, etag: String) -> Bool {
        guard let header else { return false }
        let gzipTag = String(etag.dropLast()) + "-gz\""
        return header.split(separator: ",").contains { item in
            var tag = item.trimmingSpaces()
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == "*" || tag == etag || tag == gzipTag
        }
    }

    /// `Accept-Encoding` names gzip (or `*`) without `q=0`.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        return header.lowercased().split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingSpaces() }
            guard let coding = parts.first, ["gzip", "x-gzip", "*"].contains(coding) else { return false }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return quality > 0
        }
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
}
