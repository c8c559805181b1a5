import Foundation
import Hummingbird
import NIOPosix
import StackMobCore

/// The server's backups over the admin API (docs/operations.md, "Backups and restore"):
///
/// - `GET /_admin/backups`: the copies in the backup directory (`backups.directory`), newest
///   first, with how to restore one; on an engine the server does not copy (PostgreSQL), what to
///   use instead;
/// - `POST /_admin/backups` `{"environment": "production"}` (or none: every environment): a copy
///   now, as a scheduled round makes it, the newest `backups.keep` kept;
/// - `POST /_admin/backups/download` `{"name": "<file>", "password": "<the operator's>"}`: the
///   file, streamed. A backup holds password hashes and sessions, so the operator's password is
///   asked again (wrong ones count against the sign-in limits), and the download is audited.
struct AdminBackupController {
    let backend: Backend
    let clock: any ServerClock
    let throttle: SignInThrottle
    let proxies: TrustedProxies
    let fileIO = FileIO()

    func addRoutes(to router: some RouterMethods<StackMobRequestContext>) {
        router.get("/_admin/backups", use: list)
        router.post("/_admin/backups", use: create)
        router.post("/_admin/backups/download", use: download)
    }

    private var directory: String {
        backend.configuration.backups.directory(dataDirectory: backend.configuration.dataDirectory)
    }

    /// Whether the engine copies its own databases (SQLite); the same for every environment.
    private var engineBacksUp: Bool {
        backend.environment(.development).datastore.backupEngine != nil
    }

    @Sendable func list(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let directory = self.directory
        // A directory listing and a stat per file: file system calls, off the event loop.
        let copies = try await NIOThreadPool.singleton.runIfActive { BackupRounds.copies(in: directory) }
        var answer: JSONObject = [
            "engine_backs_up": .bool(engineBacksUp), "directory": .string(directory), "keep": .integer(Int64(backend.configuration.backups.keep)),
            "interval_seconds": .integer(Int64(backend.configuration.backups.intervalSeconds)),
            "backups": .array(copies.map { copy in
                ["name": .string(copy.name), "environment": .string(copy.environment.rawValue), "taken_at": .integer(copy.takenAt), "bytes": .integer(copy.bytes)]
            }),
        ]
        answer["restore"] = engineBacksUp
            ? "Stop the server, then: stackmob-server restore --env <environment> --from <backup directory>/<name> --data-dir <data directory>"
            : "The server does not copy PostgreSQL databases: back them up with pg_dump or point-in-time recovery, and restore with pg_restore"
        return JSONResponse.make(.object(answer), headers: [.cacheControl: "no-store"])
    }

    @Sendable func create(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let name = try AdminRequest.operatorName(context)
        let body = try await AdminRequest.body(request).objectValue ?? [:]
        var environments = EnvironmentKind.allCases
        if let text = body["environment"]?.stringValue {
            guard let kind = EnvironmentKind(rawValue: text) else { throw AdminError.badInput(key: "environment", "must be development or production") }
            environments = [kind]
        }
        guard engineBacksUp else {
            throw AdminError.conflict("The server does not copy PostgreSQL databases: use pg_dump or point-in-time recovery")
        }
        // The round creates, renames and lists files between its copies: on Swift's pool, off the
        // event loop this handler runs on.
        let (backend, now) = (backend, clock.nowMilliseconds())
        let written = try await Task.detached {
            try await BackupRounds.round(backend: backend, settings: backend.configuration.backups, now: now, environments: environments)
        }.value
        let names = written.map { ($0 as NSString).lastPathComponent }
        try await backend.operators.audit(name, action: "backup.create", detail: ["files": .array(names.map(JSONValue.string))])
        return JSONResponse.make(["written": .array(names.map(JSONValue.string))], status: .created)
    }

    @Sendable func download(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let name = try AdminRequest.operatorName(context)
        let body = try await AdminRequest.body(request).objectValue ?? [:]
        guard let file = body["name"]?.stringValue, !file.isEmpty else { throw AdminError.badInput(key: "name", "must name a backup") }
        guard let password = body["password"]?.stringValue else { throw AdminError.badInput(key: "password", "must be your password") }
        let client = ClientOrigin(request, context: context, proxies: proxies).address
        let confirmed = try await throttle.attempt(name: name, address: client) {
            try await backend.operators.verifyPassword(name: name, password: password) ? true : nil
        }
        guard confirmed == true else {
            context.logger.notice("Backup download refused: wrong password", metadata: ["sm.operator": "\(name)", "sm.client": "\(client ?? "-")"])
            throw AdminError.badCredentials
        }
        // Only a name the listing shows: never a path, so nothing outside the directory leaves.
        let directory = self.directory
        let copies = try await NIOThreadPool.singleton.runIfActive { BackupRounds.copies(in: directory) }
        guard let copy = copies.first(where: { $0.name == file }) else { throw AdminError.notFound("The backup '\(file)'") }
        try await backend.operators.audit(name, action: "backup.download", detail: ["file": .string(copy.name)])
        context.logger.notice("Backup downloaded", metadata: ["sm.operator": "\(name)", "sm.backup": "\(copy.name)"])
        let contents = try await fileIO.loadFile(path: (directory as NSString).appendingPathComponent(copy.name), context: context)
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/vnd.sqlite3", .contentDisposition: "attachment; filename=\"\(copy.name)\"", .cacheControl: "no-store",
                .contentLength: String(copy.bytes),
            ],
            body: contents)
    }
}
