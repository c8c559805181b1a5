import Logging
import StackMobCore

/// `logging.format: json`: one JSON object a line on standard error, for log shippers:
/// `{"ts": "<ISO 8601>", "level", "label", "message", "<metadata key>": "<value>", …}`. Metadata
/// keys keep their dotted names (`sm.environment`); values are strings, as in the text format.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    let label: String
    private let timestamps: LogTimestamps
    private let output: LogOutput

    /// `timestamps` (`LogTimestamps.utc()`) and `output` are shared by every handler of the
    /// process.
    public init(label: String, timestamps: LogTimestamps, output: LogOutput) {
        self.label = label
        self.timestamps = timestamps
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        write((event.metadata ?? [:]).map { ($0.key, "\($0.value)") }, level: event.level, message: event.message.description)
    }

    /// The logger's metadata, then the line's own pairs, which win over it.
    private func write(_ own: [(key: String, value: String)], level: Logger.Level, message: String) {
        var line: JSONObject = [:]
        for (key, value) in metadata { line[key] = .string("\(value)") }
        for (key, value) in own { line[key] = .string(value) }
        line["ts"] = .string(timestamps.current())
        line["level"] = .string(level.rawValue)
        line["label"] = .string(label)
        line["message"] = .string(message)
        // Whole lines: lines from concurrent tasks never interleave.
        output.write(JSONWriter.bytes(.object(line)) + [UInt8(ascii: "\n")], immediately: level >= .notice)
    }
}

extension JSONLogHandler: RequestLineLogging {
    func logRequest(_ line: RequestLogLine) {
        write(line.pairs, level: .info, message: RequestLogLine.message.description)
    }
}
