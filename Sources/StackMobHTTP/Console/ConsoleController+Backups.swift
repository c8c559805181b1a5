import Foundation
import Hummingbird
import StackMobCore

/// `…/backups`: the copies in the backup directory, a copy now, a download (the operator's
/// password again), and how to restore; on PostgreSQL, what to use instead. All through the
/// admin API (`AdminBackupController`), which audits the copy and the download.
extension ConsoleController {
    @Sendable func backups(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let session = try await signedIn(request, context)
        var page = Self.banners(request)
        page["title"] = "Backups"
        let reply = try await client.send(.get, "\(AdminMiddleware.prefix)/backups", from: request, context: context)
        if !reply.isSuccess { page["error"] = reply.error }
        let object = reply.object
        page["backsUp"] = object["engine_backs_up"] == .bool(true)
        page["directory"] = object["directory"]?.stringValue ?? ""
        page["keep"] = object["keep"]?.integerValue.map(String.init) ?? ""
        page["restore"] = object["restore"]?.stringValue ?? ""
        let interval = object["interval_seconds"]?.integerValue ?? 0
        page["schedule"] = interval > 0 ? "every \(interval) seconds" : "none (backups.interval_seconds is 0)"
        page["backups"] = (object["backups"]?.arrayValue ?? []).compactMap(\.objectValue).map { copy -> [String: Any] in
            [
                "name": copy["name"]?.stringValue ?? "", "environment": copy["environment"]?.stringValue ?? "", "at": Self.date(copy["taken_at"]),
                "size": Self.size(copy["bytes"]?.integerValue ?? 0),
            ]
        }
        return ConsolePages.shared.response("backups", page, session: session)
    }

    @Sendable func createBackup(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let (session, _) = try await posted(request, context)
        let back = pagePath(session, "/backups")
        let reply = try await client.send(
            .post, "\(AdminMiddleware.prefix)/backups", body: ["environment": .string(session.environment)], csrf: session.csrf, from: request,
            context: context)
        guard reply.isSuccess else { return Self.redirect(back, error: reply.error) }
        let names = (reply.object["written"]?.arrayValue ?? []).compactMap(\.stringValue)
        return Self.redirect(back, notice: names.isEmpty ? "No copy was written" : "Backup written: \(names.joined(separator: ", "))")
    }

    /// The admin API's answer streams through; a refusal comes back as the page with its error.
    @Sendable func downloadBackup(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let (session, form) = try await posted(request, context)
        let back = pagePath(session, "/backups")
        let response = try await client.respond(
            .post, "\(AdminMiddleware.prefix)/backups/download",
            body: ["name": .string(form["name"] ?? ""), "password": .string(form["password"] ?? "")], csrf: session.csrf, from: request,
            context: context)
        guard response.status == .ok else {
            let message =
                switch response.status {
                case .unauthorized: "Wrong password: the backup was not downloaded"
                case .tooManyRequests: "Too many wrong passwords: try again later"
                default: "The backup could not be downloaded (\(response.status.code))"
                }
            return Self.redirect(back, error: message)
        }
        return response
    }

    static func size(_ bytes: Int64) -> String {
        switch bytes {
        case ..<1_024: "\(bytes) B"
        case ..<(1_024 * 1_024): String(format: "%.1f KiB", Double(bytes) / 1_024)
        default: String(format: "%.1f MiB", Double(bytes) / 1_048_576)
        }
    }
}
