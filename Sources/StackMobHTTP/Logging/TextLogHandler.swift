import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `logging.format: text` (the default): the lines of swift-log's `StreamLogHandler`, byte for
/// byte (`<local time> <level> <label>: <key=value …> [<module>] <message>`), written for less.
///
/// A request log line is written for every request, so its cost is part of every request's:
/// `StreamLogHandler` formats the time with `localtime` and `strftime` on each line, then takes
/// the `FILE` lock, writes and flushes. Here the time is formatted once a second
/// (`LogTimestamps`), and the line is built as bytes and handed to one `write(2)`, which keeps
/// lines from concurrent tasks whole without a lock of our own.
public struct TextLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:] {
        didSet { prettyMetadata = Self.prettify(metadata) }
    }
    public var logLevel: Logger.Level = .info
    private let label: String
    private let timestamps: LogTimestamps
    /// The handler's own metadata, formatted once rather than on every line.
    private var prettyMetadata = ""

    /// `timestamps` (`LogTimestamps.local()`) is shared by every handler of the process.
    public init(label: String, timestamps: LogTimestamps) {
        self.label = label
        self.timestamps = timestamps
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let pretty: String
        if let explicit = event.metadata, !explicit.isEmpty {
            pretty = Self.prettify(metadata.merging(explicit) { _, new in new })
        } else {
            pretty = prettyMetadata
        }
        var line = timestamps.current()
        line += " \(event.level)"
        if !label.isEmpty { line += " \(label)" }
        line += ":"
        if !pretty.isEmpty { line += " \(pretty)" }
        line += " [\(event.source)] \(event.message)\n"
        StandardError.write(line)
    }

    /// `key=value` pairs sorted by key and separated by spaces, as `StreamLogHandler` prints them.
    static func prettify(_ metadata: Logger.Metadata) -> String {
        metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }
}

/// The current second, formatted at most once a second for every log line of the process.
public final class LogTimestamps: Sendable {
    /// The local time as `StreamLogHandler` prints it: `2026-11-24T09:39:51+0000`.
    public static func local() -> LogTimestamps { LogTimestamps(format: "%Y-%m-%dT%H:%M:%S%z", utc: false) }
    /// ISO 8601 in UTC, as `Date.ISO8601Format()` prints it: `2026-11-24T09:39:51Z`.
    public static func utc() -> LogTimestamps { LogTimestamps(format: "%Y-%m-%dT%H:%M:%SZ", utc: true) }

    private let format: String
    private let utc: Bool
    private let cache = Mutex<(second: Int, text: String)>((-1, ""))

    private init(format: String, utc: Bool) {
        self.format = format
        self.utc = utc
    }

    func current() -> String {
        let now = time(nil)
        if let cached = cache.withLock({ $0.second == now ? $0.text : nil }) { return cached }
        let text = formatted(now)
        cache.withLock { $0 = (now, text) }
        return text
    }

    private func formatted(_ second: time_t) -> String {
        var second = second
        var parts = tm()
        guard (utc ? gmtime_r(&second, &parts) : localtime_r(&second, &parts)) != nil else { return "<unknown>" }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, format, &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Whole lines to standard error, each in as few `write(2)` calls as the kernel allows: one,
/// unless a pipe takes it in parts.
enum StandardError {
    static func write(_ line: String) {
        var line = line
        line.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    static func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    private static func write(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return  // A closed or full standard error: the line is lost, the request is not.
            }
        }
    }
}
