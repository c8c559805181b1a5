import Foundation
import Synchronization

/// The event-loop stalls this process has seen since it started (`EventLoopStallDetector`), for
/// the console's overview and the admin API's health (docs/operations.md, "Web console"): how
/// many checks ran later than `monitoring.stall_warning_ms`, the longest, and the last. The
/// histogram in `/metrics` keeps every lateness; this keeps the few figures an operator reads at
/// a glance. Written from any event loop, hence the lock.
public final class EventLoopStalls: Sendable {
    public struct Summary: Sendable, Equatable {
        /// Checks later than the threshold, since start.
        public var count = 0
        /// The longest of them, in nanoseconds.
        public var longestNanoseconds: Int64 = 0
        /// When the last one was seen (milliseconds since the epoch), and how late it ran.
        public var lastAt: Int64?
        public var lastNanoseconds: Int64 = 0
    }

    private let summary = Mutex(Summary())

    public init() {}

    func record(lateNanoseconds late: Int64) {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        summary.withLock { summary in
            summary.count += 1
            summary.longestNanoseconds = max(summary.longestNanoseconds, late)
            summary.lastAt = now
            summary.lastNanoseconds = late
        }
    }

    public func current() -> Summary {
        summary.withLock { $0 }
    }
}
