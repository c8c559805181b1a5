import Logging
import StackMobCore
import StackMobHTTPServer
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
/// (`LogTimestamps`), and the line is built as one string and handed to `LogOutput`, which
/// writes it whole: at once from `notice` up, in a batch of a few milliseconds' lines below.
public struct TextLogHandler: LogHandler {
    /// The logger's metadata but its request id. Formatted only when a line is written: most
    /// requests' loggers write one line or none.
    private var otherMetadata: Logger.Metadata = [:]
    /// `hb.request.id`, which every request's logger is given (`HTTP1Exchange`), kept out of the
    /// dictionary: setting it there made a dictionary for every request, and hashed its key
    /// (docs/benchmarks.md, "Figures behind design choices").
    private var requestID: Logger.MetadataValue?
    static let requestIDKey = RequestIDs.metadataKey
    public var logLevel: Logger.Level = .info
    private let label: String
    private let timestamps: LogTimestamps
    private let output: LogOutput

    /// `timestamps` (`LogTimestamps.local()`) and `output` are shared by every handler of the
    /// process.
    public init(label: String, timestamps: LogTimestamps, output: LogOutput) {
        self.label = label
        self.timestamps = timestamps
        self.output = output
    }

    public var metadata: Logger.Metadata {
        get {
            guard let requestID else { return otherMetadata }
            var metadata = otherMetadata
            metadata[Self.requestIDKey] = requestID
            return metadata
        }
        set {
            var metadata = newValue
            requestID = metadata.removeValue(forKey: Self.requestIDKey)
            otherMetadata = metadata
        }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { key == Self.requestIDKey ? requestID : otherMetadata[key] }
        set {
            if key == Self.requestIDKey {
                requestID = newValue
            } else {
                otherMetadata[key] = newValue
            }
        }
    }

    public func log(event: LogEvent) {
        write(level: event.level, pretty: Self.prettify(metadata, event.metadata ?? [:]), source: event.source, message: event.message.description)
    }

    /// `pretty` and `message` may hold what a client sent: their control characters are escaped
    /// (`escapingControls`), so that a line stays one line.
    private func write(level: Logger.Level, pretty: String, source: String, message: String) {
        let pretty = Self.escapingControls(pretty)
        let message = Self.escapingControls(message)
        var line = timestamps.current()
        // One allocation for the whole line, where growing it took several.
        line.reserveCapacity(line.utf8.count + label.utf8.count + pretty.utf8.count + message.utf8.count + 48)
        line += " \(level)"
        if !label.isEmpty { line += " \(label)" }
        line += ":"
        if !pretty.isEmpty { line += " \(pretty)" }
        line += " [\(source)] \(message)\n"
        output.write(line, immediately: level >= .notice)
    }

    /// `key=value` pairs sorted by key and separated by spaces, as `StreamLogHandler` prints them;
    /// a key in `explicit` (the line's own metadata) wins over the same key in `base` (the
    /// logger's). Built in one string, without the merged dictionary and the intermediate array
    /// of strings `StreamLogHandler` makes for each line.
    static func prettify(_ base: Logger.Metadata, _ explicit: Logger.Metadata) -> String {
        prettify(base, explicit.map { ($0.key, $0.value.description) })
    }

    /// The same, with the line's own pairs as strings (`RequestLogLine.pairs`); their keys are
    /// unique.
    static func prettify(_ base: Logger.Metadata, _ own: [(key: String, value: String)]) -> String {
        var pairs: [(key: String, value: String)] = []
        pairs.reserveCapacity(base.count + own.count)
        for (key, value) in base where !own.contains(where: { $0.key == key }) { pairs.append((key, value.description)) }
        pairs.append(contentsOf: own)
        // Byte order is `String`'s order for the ASCII keys metadata has, without its Unicode
        // comparison; a line has a handful of pairs, for which an insertion sort is the fastest.
        guard pairs.count <= 16 else {
            pairs.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            return joined(pairs)
        }
        for index in pairs.indices.dropFirst() {
            var slot = index
            while slot > 0 && pairs[slot].key.utf8.lexicographicallyPrecedes(pairs[slot - 1].key.utf8) {
                pairs.swapAt(slot, slot - 1)
                slot -= 1
            }
        }
        return joined(pairs)
    }

    private static func joined(_ pairs: [(key: String, value: String)]) -> String {
        var text = ""
        text.reserveCapacity(pairs.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 2 })
        for (index, pair) in pairs.enumerated() {
            if index > 0 { text += " " }
            text += pair.key
            text += "="
            text += pair.value
        }
        return text
    }
}

extension TextLogHandler: RequestLineLogging {
    /// The bytes `log(event:)` writes for the line, put in one buffer as they go: the strings and
    /// arrays the general path builds were the largest single cost of a trivial request
    /// (docs/benchmarks.md, "Figures behind design choices").
    func logRequest(_ line: RequestLogLine) {
        // The logger's pairs (the request id), sorted, without the keys the line has: there are
        // one or two, so insertion into a small array is the sort.
        var base: [(key: String, value: String)] = []
        base.reserveCapacity(otherMetadata.count + 1)
        if let requestID { base.append((Self.requestIDKey, requestID.description)) }
        for (key, value) in otherMetadata where !RequestLogLine.keys.contains(key) {
            let slot = base.firstIndex { key.utf8.lexicographicallyPrecedes($0.key.utf8) } ?? base.endIndex
            base.insert((key, value.description), at: slot)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(112 + label.utf8.count + line.path.utf8.count + base.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 2 })
        Self.append(timestamps.current(), to: &bytes)
        Self.append(" info", to: &bytes)
        if !label.isEmpty {
            bytes.append(UInt8(ascii: " "))
            Self.append(label, to: &bytes)
        }
        bytes.append(UInt8(ascii: ":"))
        // The line's keys are in order; the logger's go where they sort among them.
        var next = base.startIndex
        func flushBase(before key: String?) {
            while next < base.endIndex, key.map({ base[next].key.utf8.lexicographicallyPrecedes($0.utf8) }) ?? true {
                Self.appendPair(base[next].key, base[next].value, to: &bytes)
                next += 1
            }
        }
        // The line's keys need no escaping, nor do its numbers.
        flushBase(before: "sm.duration_ms")
        Self.append(" sm.duration_ms=", to: &bytes)
        Self.append(line.milliseconds.description, to: &bytes)
        flushBase(before: "sm.method")
        Self.append(" sm.method=", to: &bytes)
        Self.appendEscaped(line.method, to: &bytes)
        flushBase(before: "sm.path")
        Self.append(" sm.path=", to: &bytes)
        Self.appendEscaped(line.path, to: &bytes)
        flushBase(before: "sm.status")
        Self.append(" sm.status=", to: &bytes)
        JSONWriter.writeInteger(Int64(line.status), into: &bytes)
        flushBase(before: nil)
        Self.append(" [StackMobHTTP] Request\n", to: &bytes)
        output.write(bytes, immediately: false)
    }

    /// Keys and values escaped as `write` escapes them: the path and the logger's metadata are
    /// the client's in part.
    private static func appendPair(_ key: String, _ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: " "))
        appendEscaped(key, to: &bytes)
        bytes.append(UInt8(ascii: "="))
        appendEscaped(value, to: &bytes)
    }

    /// A string's bytes, copied as one block: `+= string.utf8` went through the generic sequence
    /// copy, much of the line's cost (docs/benchmarks.md, "Figures behind design choices").
    private static func append(_ string: String, to bytes: inout [UInt8]) {
        string.utf8.span.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
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
