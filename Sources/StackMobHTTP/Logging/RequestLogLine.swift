import Logging

/// The line `RequestLogMiddleware` logs for every request: method, path, status and duration.
///
/// Its own type so that the handlers can write it without swift-log's metadata dictionary
/// (`RequestLineLogging`): building that dictionary and merging it with the logger's was a large
/// part of what the request log cost the trivial route (docs/benchmarks.md, "Figures behind design
/// choices").
struct RequestLogLine: Sendable {
    static let message: Logger.Message = "Request"
    /// The module `Logger.info` would name for a line logged from `RequestLogMiddleware`.
    static let source = "StackMobHTTP"

    let method: String
    let path: String
    let status: Int
    let duration: Duration

    /// The line's metadata keys, sorted.
    static let keys = ["sm.duration_ms", "sm.method", "sm.path", "sm.status"]

    /// The line's metadata, sorted by key.
    var pairs: [(key: String, value: String)] {
        [("sm.duration_ms", "\(milliseconds)"), ("sm.method", method), ("sm.path", path), ("sm.status", "\(status)")]
    }

    /// The same pairs, for a handler that only takes swift-log's `log(event:)`.
    var metadata: Logger.Metadata {
        var metadata: Logger.Metadata = [:]
        for (key, value) in pairs { metadata[key] = .string(value) }
        return metadata
    }

    var milliseconds: Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}

/// A log handler that writes a `RequestLogLine` itself: the same bytes as `log(event:)` with the
/// line's metadata, level `info`, source `StackMobHTTP`, without building the event. (Text lines
/// sort metadata keys by their UTF-8 bytes, `String`'s order for the ASCII keys the server and
/// Hummingbird set.)
protocol RequestLineLogging: LogHandler {
    func logRequest(_ line: RequestLogLine)
}

extension Logger {
    /// Logs `line` at `info`, through the handler's own `logRequest` when it has one and nothing
    /// (a metadata provider) would add to the line. `line` is built only when `info` is logged.
    func logRequest(_ line: @autoclosure () -> RequestLogLine) {
        guard logLevel <= .info else { return }
        if metadataProvider == nil {
            // The server's own handlers by their concrete types: a cast to the protocol looked up
            // the conformance on every request.
            if let handler = handler as? TextLogHandler {
                handler.logRequest(line())
                return
            }
            if let handler = handler as? JSONLogHandler {
                handler.logRequest(line())
                return
            }
            if let handler = handler as? any RequestLineLogging {
                handler.logRequest(line())
                return
            }
        }
        info(RequestLogLine.message, metadata: line().metadata)
    }
}
