import Foundation
import Logging
import Synchronization

/// The warnings start-up logged about how the server is set up (an environment variable that
/// names no key, a data directory other users can read), kept so that the console's overview can
/// show them to an operator who never reads the log (docs/operations.md, "Web console").
///
/// One list per application, made by the composition root and handed down with the other
/// start-up parts (never a global: tests run several servers in one process). Bounded: the newest
/// `capacity` warnings, so that a setup that warns about every one of many variables cannot grow it.
public final class ConfigurationWarnings: Sendable {
    public struct Warning: Sendable, Equatable {
        /// Milliseconds since the epoch.
        public let at: Int64
        /// The log line's constant message.
        public let message: String
        /// The log line's metadata, as text: names and paths, never a secret (the log's rules).
        public let detail: [String: String]
    }

    public let capacity: Int
    private let warnings = Mutex<[Warning]>([])

    public init(capacity: Int = 10) {
        self.capacity = capacity
    }

    /// Logs `message` at `warning` and keeps it.
    public func warn(_ message: Logger.Message, metadata: Logger.Metadata = [:], logger: Logger) {
        logger.warning(message, metadata: metadata)
        let warning = Warning(
            at: Int64(Date().timeIntervalSince1970 * 1000), message: message.description, detail: metadata.mapValues(\.description))
        warnings.withLock { list in
            list.append(warning)
            if list.count > capacity { list.removeFirst(list.count - capacity) }
        }
    }

    /// Newest first.
    public func recent() -> [Warning] {
        warnings.withLock { $0.reversed() }
    }
}
