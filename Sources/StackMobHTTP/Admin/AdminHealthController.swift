import Hummingbird
import StackMobCore

/// `GET /_admin/environments/<env>/health`: the figures the console's overview shows at a glance
/// (docs/operations.md, "Admin API" and "Web console"):
///
/// - `push_outbox`: deliveries by state (`pending` is the depth, `failed` and `expired` the failures);
/// - `mail_outbox`: the mails kept instead of sent (`depth`), and whether mail goes over SMTP;
/// - `event_loop_stalls`: checks of an event loop later than `monitoring.stall_warning_ms` since
///   start, the longest and the last (docs/architecture.md, "The event-loop rule");
/// - `connections`: the connections open on the API port now, and the limit;
/// - `database_bytes`: what the environment's database takes on disk (absent when the engine
///   cannot tell);
/// - `configuration_warnings`: the last warnings start-up logged about the setup, newest first.
///
/// Stalls, connections and warnings are this instance's (`"scope": "instance"`). Nothing here is
/// secret: counts, sizes, and the warnings' names and paths, as the log has them.
struct AdminHealthController {
    let backend: Backend
    let health: InstanceHealth

    func addRoutes(to router: some RouterMethods<StackMobRequestContext>) {
        router.get("/_admin/environments/:env/health", use: show)
    }

    @Sendable func show(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try AdminRequest.environment(context, backend: backend)
        let push = try await environment.push.outboxCounts()
        var pushJSON: JSONObject = [:]
        for state in ["pending", "delivered", "failed", "expired"] { pushJSON[state] = .integer(Int64(push[state] ?? 0)) }
        let depth = try await environment.mailOutboxDepth()
        // A size the engine failed to read is shown as unknown rather than failing the figures
        // that did read.
        let bytes = (try? await environment.databaseSize()) ?? nil
        let stalls = health.stalls.current()
        var stallsJSON: JSONObject = [
            "count": .integer(Int64(stalls.count)), "longest_ms": .float(Self.milliseconds(stalls.longestNanoseconds)),
            "threshold_ms": .integer(Int64(health.stallThresholdMilliseconds)),
        ]
        if let last = stalls.lastAt {
            stallsJSON["last_at"] = .integer(last)
            stallsJSON["last_ms"] = .float(Self.milliseconds(stalls.lastNanoseconds))
        }
        var object: JSONObject = [
            "scope": "instance", "push_outbox": .object(pushJSON),
            "mail_outbox": ["depth": .integer(Int64(depth)), "smtp": .bool(backend.mailer != nil)],
            "event_loop_stalls": .object(stallsJSON),
            "configuration_warnings": .array(
                backend.configurationWarnings.recent().map { warning in
                    [
                        "at": .integer(warning.at), "message": .string(warning.message),
                        "detail": .object(JSONObject(warning.detail.mapValues(JSONValue.string))),
                    ]
                }),
        ]
        if let connections = health.connections {
            object["connections"] = ["open": .integer(Int64(connections.openCount)), "limit": .integer(Int64(connections.limit))]
        }
        if let bytes { object["database_bytes"] = .integer(bytes) }
        return JSONResponse.make(.object(object), headers: [.cacheControl: "no-store"])
    }

    static func milliseconds(_ nanoseconds: Int64) -> Double {
        (Double(nanoseconds) / 10_000).rounded() / 100
    }
}
