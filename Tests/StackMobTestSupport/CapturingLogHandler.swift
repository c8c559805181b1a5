import Logging
import Synchronization

/// A log handler that records every line with its metadata, so tests can check what the server
/// logs (and that no secret ever appears in it).
public struct CapturingLogHandler: LogHandler {
    public struct Line: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: [String: String]

        /// The message and every metadata key and value, for searching.
        public var fullText: String {
            ([message] + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
        }
    }

    public final class Store: Sendable {
        private let lines = Mutex<[Line]>([])
        public init() {}
        public var all: [Line] { lines.withLock { $0 } }
        func append(_ line: Line) { lines.withLock { $0.append(line) } }
    }

    public let store: Store
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init(store: Store) {
        self.store = store
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        store.append(Line(level: event.level, message: event.message.description, metadata: merged.mapValues { "\($0)" }))
    }

    /// A logger writing into a new store.
    public static func logger() -> (Logger, Store) {
        let store = Store()
        let logger = Logger(label: "stackmob-test-captured") { _ in CapturingLogHandler(store: store) }
        return (logger, store)
    }
}
