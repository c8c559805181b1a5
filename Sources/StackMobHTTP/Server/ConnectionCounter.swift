import Logging
import Synchronization

/// The connections one listener holds open, against `limits.max_connections`. Shared by every
/// connection's `HTTP1ConnectionHandler`, on any event loop: hence atomics.
final class ConnectionCounter: Sendable {
    let limit: Int
    private let open = Atomic<Int>(0)
    /// When a refusal was last logged (seconds on the monotonic clock), so a flood of refused
    /// connections writes one line every 10 seconds, not one each.
    private let lastLogged = Atomic<Int64>(-10)
    private let logger: Logger

    init(limit: Int, logger: Logger) {
        self.limit = limit
        self.logger = logger
    }

    /// Counts a new connection; false when it is one too many (it is still counted until
    /// `closed()`).
    func opened() -> Bool {
        let count = open.wrappingAdd(1, ordering: .relaxed).newValue
        guard count > limit else { return true }
        let now = Self.start.duration(to: .now).components.seconds
        let last = lastLogged.load(ordering: .relaxed)
        if now - last >= 10, lastLogged.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged {
            logger.warning("Connection refused: the listener holds limits.max_connections connections", metadata: ["sm.limit": "\(limit)"])
        }
        return false
    }

    func closed() {
        open.wrappingSubtract(1, ordering: .relaxed)
    }

    private static let start = ContinuousClock.now
}
