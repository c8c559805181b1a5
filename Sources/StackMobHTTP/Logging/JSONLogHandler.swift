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
        var line: JSONObject = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { _, new in new }) {
            line[key] = .string("\(value)")
        }
        write(&line, level: event.level, message: event.message.description)
    }

    private func write(_ line: inout JSONObject, level: Logger.Level, message: String) {
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
        var object: JSONObject = [:]
        for (key, value) in metadata { object[key] = .string("\(value)") }
        for (key, value) in line.pairs { object[key] = .string(value) }
        write(&object, level: .info, message: RequestLogLine.message.description)
    }
}
