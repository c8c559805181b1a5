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
        line["ts"] = .string(timestamps.current())
        line["level"] = .string(event.level.rawValue)
        line["label"] = .string(label)
        line["message"] = .string(event.message.description)
        // Whole lines: lines from concurrent tasks never interleave.
        output.write(JSONWriter.bytes(.object(line)) + [UInt8(ascii: "\n")], immediately: event.level >= .notice)
    }
}
