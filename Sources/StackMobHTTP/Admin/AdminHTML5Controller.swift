import Hummingbird
import NIOPosix
import StackMobCore

/// An environment's HTML5 app over the admin API (docs/operations.md, "Hosting your HTML5 app";
/// through `HTML5Deployments`, the service `stackmob-server html5` uses):
///
/// - `GET /_admin/environments/<env>/html5`: the version served (`current`, absent before the
///   first deploy) and the versions kept;
/// - `POST /_admin/environments/<env>/html5/deploy` with the site as a `.tar` or `.tar.gz` body
///   (`Content-Type: application/x-tar` or `application/gzip`), or `{"directory": "<path>"}` for a
///   directory under `html5.deploy_root`: never any other path the server can read;
/// - `POST /_admin/environments/<env>/html5/rollback`;
/// - `POST /_admin/environments/production/html5/promote`: development's current files become
///   production's new version.
///
/// Each change is atomic for readers, in force at once, and audited.
struct AdminHTML5Controller {
    let backend: Backend

    func addRoutes(to router: some RouterMethods<StackMobRequestContext>) {
        router.get("/_admin/environments/:env/html5", use: versions)
        router.post("/_admin/environments/:env/html5/deploy", use: deploy)
        router.post("/_admin/environments/:env/html5/rollback", use: rollback)
        router.post("/_admin/environments/:env/html5/promote", use: promote)
    }

    private var deployments: HTML5Deployments { HTML5Deployments(configuration: backend.configuration) }

    @Sendable func versions(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let kind = try AdminRequest.environment(context, backend: backend).kind
        return JSONResponse.make([
            "current": deployments.current(kind).map { .integer(Int64($0.number)) } ?? .null,
            "versions": .array(deployments.versions(kind).map { .integer(Int64($0)) }),
        ])
    }

    @Sendable func deploy(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let kind = try AdminRequest.environment(context, backend: backend).kind
        let settings = backend.configuration.html5
        if Self.isArchive(request) {
            let limit = settings.maxArchiveBytes
            let archive = Array(buffer: try await RequestBodyReader.bytes(request, limit: limit))
            // Unpacking, copying and gzip take as long as the site is large: off the event loop.
            let version = try await NIOThreadPool.singleton.runIfActive { [deployments] in
                try deployments.deploy(archive: archive, to: kind, maxUnpackedBytes: 4 * limit)
            }
            return try await changed(context, kind: kind, action: "html5.deploy", version: version, detail: ["archive_bytes": .integer(Int64(archive.count))])
        }
        guard let directory = (try await AdminRequest.body(request)).objectValue?["directory"]?.stringValue, !directory.isEmpty else {
            throw AdminError.badInput(key: "directory", "must be a directory under html5.deploy_root; or send the site as a .tar or .tar.gz body")
        }
        guard let root = settings.deployRoot else { throw HTML5Error.outsideDeployRoot }
        let source = try DeployRoot.resolve(directory, root: root, dataDirectory: backend.configuration.dataDirectory)
        let version = try await NIOThreadPool.singleton.runIfActive { [deployments] in
            do {
                return try deployments.deploy(directory: source, to: kind)
            } catch HTML5Error.sourceNotFound, HTML5Error.sourceNotADirectory {
                // Named as the operator wrote it: the resolved path is the server's.
                throw HTML5Error.sourceNotFound(directory)
            }
        }
        return try await changed(context, kind: kind, action: "html5.deploy", version: version, detail: ["directory": .string(directory)])
    }

    /// A body that is the site itself: a tar archive, gzip-compressed or not.
    private static func isArchive(_ request: Request) -> Bool {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingSpaces().lowercased() ?? ""
        return ["application/x-tar", "application/tar", "application/gzip", "application/x-gzip", "application/octet-stream"].contains(type)
    }

    @Sendable func rollback(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let kind = try AdminRequest.environment(context, backend: backend).kind
        // Switching versions waits for the disk (`HTML5Deployments`): off the event loop.
        let version = try await NIOThreadPool.singleton.runIfActive { [deployments] in try deployments.rollback(kind) }
        return try await changed(context, kind: kind, action: "html5.rollback", version: version)
    }

    @Sendable func promote(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let kind = try AdminRequest.environment(context, backend: backend).kind
        guard kind == .production else { throw AdminError.badInput(key: "env", "promote copies development's files to production: use /environments/production") }
        // A copy of the whole site, synced: off the event loop.
        let version = try await NIOThreadPool.singleton.runIfActive { [deployments] in
            try deployments.promote(from: .development, to: .production)
        }
        return try await changed(context, kind: kind, action: "html5.promote", version: version)
    }

    private func changed(
        _ context: StackMobRequestContext, kind: EnvironmentKind, action: String, version: Int, detail: JSONObject = [:]
    ) async throws -> Response {
        var detail = detail
        detail["environment"] = .string(kind.rawValue)
        detail["version"] = .integer(Int64(version))
        try await backend.operators.audit(try AdminRequest.operatorName(context), action: action, detail: .object(detail))
        return JSONResponse.make(["version": .integer(Int64(version))])
    }
}
