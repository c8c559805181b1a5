import Foundation
import Hummingbird
import StackMobCore

/// The overview's "Health at a glance" (docs/operations.md, "Web console"): the admin API's
/// `…/health` figures, each beside the page that tells more.
extension ConsoleController {
    func health(_ session: ConsoleSession, _ request: Request, _ context: StackMobRequestContext) async throws -> [String: Any] {
        let reply = try await client.send(.get, adminPath(session, "/health"), from: request, context: context)
        guard reply.isSuccess else { return ["error": reply.error] }
        let figures = reply.object
        var rows: [[String: Any]] = []
        func row(_ id: String, _ label: String, _ value: String, number: Int64? = nil, alert: Bool = false, href: String?, link: String) {
            var row: [String: Any] = ["id": id, "label": label, "value": value, "alert": alert, "link": link]
            if let number { row["number"] = "\(number)" }
            if let href { row["href"] = href }
            rows.append(row)
        }
        let push = figures["push_outbox"]?.objectValue ?? [:]
        let (pending, failed, expired) = (Self.count(push["pending"]), Self.count(push["failed"]), Self.count(push["expired"]))
        row(
            "push", "Push outbox", "\(pending) waiting, \(failed) failed, \(expired) expired", number: pending, alert: failed + expired > 0,
            href: pagePath(session, "/push"), link: "Push")
        let mail = figures["mail_outbox"]?.objectValue ?? [:]
        let depth = Self.count(mail["depth"])
        let smtp = mail["smtp"] == .bool(true)
        row(
            "mail", "Mail outbox", smtp ? "mail goes over SMTP; \(depth) kept from before" : "\(depth) kept instead of sent (no SMTP server)",
            number: depth, href: pagePath(session, "/mail"), link: "Mail outbox")
        let stalls = figures["event_loop_stalls"]?.objectValue ?? [:]
        let stallCount = Self.count(stalls["count"])
        let threshold = Self.count(stalls["threshold_ms"])
        var stallText = stallCount == 0 ? "none since start" : "\(stallCount) since start, the longest \(Self.milliseconds(stalls["longest_ms"]))"
        if stallCount > 0, stalls["last_at"] != nil {
            stallText += ", the last \(Self.date(stalls["last_at"])) (\(Self.milliseconds(stalls["last_ms"])))"
        }
        row(
            "stalls", "Event-loop stalls", stallText + " (a check \(threshold) ms late or more)", number: stallCount, alert: stallCount > 0,
            href: pagePath(session, "/traffic"), link: "Traffic")
        if let connections = figures["connections"]?.objectValue {
            let open = Self.count(connections["open"])
            row(
                "connections", "Open connections", "\(open) on the API port (limit \(Self.count(connections["limit"])))", number: open,
                href: pagePath(session, "/requests"), link: "Recent requests")
        }
        let bytes = figures["database_bytes"]?.integerValue
        row(
            "database", "Database size", bytes.map(Self.bytes) ?? "unknown", number: bytes, href: pagePath(session, "/backups"),
            link: "Backups")
        let warnings = (figures["configuration_warnings"]?.arrayValue ?? []).compactMap(\.objectValue).map { warning -> [String: Any] in
            [
                "at": Self.date(warning["at"]), "message": warning["message"]?.stringValue ?? "",
                "detail": (warning["detail"]?.objectValue ?? [:]).map { "\($0.key)=\($0.value.stringValue ?? "")" },
            ]
        }
        row(
            "warnings", "Configuration warnings", warnings.isEmpty ? "none at start-up" : "\(warnings.count) at start-up",
            number: Int64(warnings.count), alert: !warnings.isEmpty, href: "#warnings-h", link: "The warnings")
        return ["rows": rows, "warnings": warnings]
    }

    private static func count(_ value: JSONValue?) -> Int64 {
        value?.integerValue ?? 0
    }

    private static func milliseconds(_ value: JSONValue?) -> String {
        String(format: "%.1f", number(value) ?? 0) + " ms"
    }

    /// In binary units, as `du -h` and `ls -lh` show sizes.
    static func bytes(_ count: Int64) -> String {
        if count < 1_024 { return "\(count) bytes" }
        var value = Double(count)
        for unit in ["KiB", "MiB", "GiB", "TiB"] {
            value /= 1_024
            if value < 1_024 || unit == "TiB" { return String(format: "%.1f", value) + " " + unit }
        }
        return "\(count) bytes"
    }
}
