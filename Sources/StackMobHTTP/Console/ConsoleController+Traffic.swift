import Foundation
import Hummingbird
import StackMobCore

/// What the environment is answering: `…/traffic` (requests, errors and latency over the last
/// hour or day, as charts with their tables) and `…/requests` (the last requests, filtered),
/// both from the admin API's figures of this instance (`AdminTrafficController`).
extension ConsoleController {
    @Sendable func traffic(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let session = try await signedIn(request, context)
        var page = Self.banners(request)
        page["title"] = "Traffic"
        let window = ConsoleForm.query(request)["window"] == "day" ? "day" : "hour"
        page["day"] = window == "day"
        page["windowLabel"] = window == "day" ? "the last 24 hours, per hour" : "the last hour, per minute"
        page["hourHref"] = pagePath(session, "/traffic?window=hour")
        page["dayHref"] = pagePath(session, "/traffic?window=day")
        let reply = try await client.send(.get, adminPath(session, "/traffic?window=\(window)"), from: request, context: context)
        if !reply.isSuccess { page["error"] = reply.error }
        let periods = (reply.object["periods"]?.arrayValue ?? []).compactMap(\.objectValue).map { period in
            TrafficChart.Period(
                label: Self.time(period["at"], day: window == "day"), requests: Int(period["requests"]?.integerValue ?? 0),
                clientErrors: Int(period["client_errors"]?.integerValue ?? 0), serverErrors: Int(period["server_errors"]?.integerValue ?? 0),
                p50: Self.number(period["p50_ms"]), p99: Self.number(period["p99_ms"]))
        }
        page["requestsChart"] = TrafficChart.requestBars(periods)
        page["latencyChart"] = TrafficChart.latencyLines(periods)
        page["first"] = periods.first?.label ?? ""
        page["last"] = periods.last?.label ?? ""
        page["rows"] = periods.map { period -> [String: Any] in
            let rate = period.requests == 0 ? "" : String(format: "%.1f %%", Double(period.clientErrors + period.serverErrors) * 100 / Double(period.requests))
            return [
                "label": period.label, "requests": "\(period.requests)", "client": "\(period.clientErrors)", "server": "\(period.serverErrors)",
                "rate": rate, "p50": period.p50.map { TrafficChart.format($0) } ?? "", "p99": period.p99.map { TrafficChart.format($0) } ?? "",
            ]
        }
        page["total"] = "\(periods.map(\.requests).reduce(0, +))"
        return ConsolePages.shared.response("traffic", page, session: session)
    }

    @Sendable func requests(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let session = try await signedIn(request, context)
        var page = Self.banners(request)
        page["title"] = "Recent requests"
        let form = ConsoleForm.query(request)
        var query: [String] = ["limit=500"]
        let status = form.trimmed("status") ?? ""
        if !status.isEmpty { query.append("status=" + ConsoleForm.encode(status)) }
        let path = form.trimmed("path") ?? ""
        if !path.isEmpty { query.append("path=" + ConsoleForm.encode(path)) }
        let user = form.trimmed("user") ?? ""
        if !user.isEmpty { query.append("user=" + ConsoleForm.encode(user)) }
        let minutes = Int(form.trimmed("minutes") ?? "") ?? 0
        if minutes > 0 { query.append("since=\(Int64(Date().timeIntervalSince1970 * 1000) - Int64(minutes) * 60_000)") }
        page["path"] = path
        page["user"] = user
        page["statuses"] = ["", "2xx", "3xx", "4xx", "5xx"].map { value -> [String: Any] in
            ["value": value, "label": value.isEmpty ? "any" : value, "selected": value == status]
        }
        page["times"] = [(0, "any time"), (5, "the last 5 minutes"), (60, "the last hour"), (1_440, "the last day")].map { value, label -> [String: Any] in
            ["value": "\(value)", "label": label, "selected": value == minutes]
        }
        let reply = try await client.send(.get, adminPath(session, "/requests?" + query.joined(separator: "&")), from: request, context: context)
        if !reply.isSuccess { page["error"] = reply.error }
        page["requests"] = (reply.object["requests"]?.arrayValue ?? []).compactMap(\.objectValue).map { entry -> [String: Any] in
            let status = Int(entry["status"]?.integerValue ?? 0)
            return [
                "at": Self.date(entry["at"]), "method": entry["method"]?.stringValue ?? "", "route": entry["route"]?.stringValue ?? "",
                "path": entry["path"]?.stringValue ?? "", "status": "\(status)", "error": status >= 400,
                "duration": Self.number(entry["duration_ms"]).map { TrafficChart.format($0) } ?? "", "user": entry["user"]?.stringValue ?? "",
                "id": entry["request_id"]?.stringValue ?? "",
            ]
        }
        return ConsolePages.shared.response("requests", page, session: session)
    }

    /// `HH:MM` in UTC, with the date for the day's hours.
    static func time(_ value: JSONValue?, day: Bool) -> String {
        guard let ms = value?.integerValue else { return "" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = day ? "MMM d HH:mm" : "HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000)) + " UTC"
    }

    static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .integer(let number): Double(number)
        case .float(let number): number
        default: nil
        }
    }
}
