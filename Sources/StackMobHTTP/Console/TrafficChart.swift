/// The traffic page's charts as SVG geometry, drawn on the server: no script, no build step, and
/// the numbers beside each chart in a table for screen readers. The template writes every value
/// with `{{…}}`, like any other.
enum TrafficChart {
    static let width = 720.0
    static let height = 160.0
    /// Room for the axis labels on the left.
    static let left = 48.0

    /// One period as the admin API answers it.
    struct Period {
        let label: String
        let requests: Int
        let clientErrors: Int
        let serverErrors: Int
        let p50: Double?
        let p99: Double?
    }

    /// Stacked bars per period: answered (below 400), 4xx, 5xx.
    static func requestBars(_ periods: [Period]) -> [String: Any] {
        let top = max(1, periods.map(\.requests).max() ?? 1)
        let slot = (width - left) / Double(max(1, periods.count))
        var rects: [[String: Any]] = []
        for (index, period) in periods.enumerated() where period.requests > 0 {
            var base = height
            let parts = [
                ("ok", period.requests - period.clientErrors - period.serverErrors), ("client", period.clientErrors), ("server", period.serverErrors),
            ]
            for (kind, count) in parts where count > 0 {
                let h = Double(count) / Double(top) * height
                base -= h
                rects.append([
                    "x": format(left + Double(index) * slot + 1), "y": format(base), "w": format(max(1, slot - 2)), "h": format(h), "class": kind,
                    "title": "\(period.label): \(count) \(kind == "ok" ? "answered" : kind == "client" ? "4xx" : "5xx")",
                ])
            }
        }
        return ["rects": rects, "max": "\(top)", "width": format(width), "height": format(height + 20), "left": format(left), "bottom": format(height)]
    }

    /// p50 and p99 latency as two lines over the periods that had requests.
    static func latencyLines(_ periods: [Period]) -> [String: Any] {
        let top = max(1, periods.compactMap(\.p99).max() ?? 1)
        let slot = (width - left) / Double(max(1, periods.count))
        func points(_ value: (Period) -> Double?) -> String {
            periods.enumerated().compactMap { index, period in
                value(period).map { "\(format(left + (Double(index) + 0.5) * slot)),\(format(height - $0 / top * height))" }
            }.joined(separator: " ")
        }
        return [
            "p50": points(\.p50), "p99": points(\.p99), "max": "\(format(top)) ms", "width": format(width), "height": format(height + 20),
            "left": format(left), "bottom": format(height),
        ]
    }

    static func format(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
