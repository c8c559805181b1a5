import Logging
import NIOCore
import NIOPosix
import Prometheus
import ServiceLifecycle
import Synchronization

/// Notices an event loop held up by work that should not run on it (docs/architecture.md, "The
/// event-loop rule"): each loop of the group runs a check every `interval`, and how late the
/// check ran is how long something else held the loop, while every connection on it waited.
///
/// Each lateness goes into `stackmob_event_loop_lag_seconds`; one past `warnAfter` is logged at
/// `warning`, at most one line every 10 seconds (with the worst lateness and how many checks were
/// that late since the last line), so a loop blocked over and over cannot flood the log; and
/// into `stalls`, the figures the console's overview shows.
///
/// A check costs a timer and two clock reads, 20 times a second per loop.
final class EventLoopStallDetector: Service, Sendable {
    static let interval = TimeAmount.milliseconds(50)
    static let help = "How late each event loop ran its periodic check: how long other work held the loop"
    static let buckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    private let group: any EventLoopGroup
    private let warnAfter: TimeAmount
    private let lag: DurationHistogram
    private let logger: Logger
    private let stalls: EventLoopStalls
    /// Checks past `warnAfter` since the last warning, and the worst of them (nanoseconds).
    private let unlogged = Mutex<(count: Int, worst: Int64, lastLogged: NIODeadline?)>((0, 0, nil))

    /// - Parameter group: the loops the listeners serve on (Hummingbird's, NIO's singleton group).
    init(
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, warnAfter: TimeAmount, registry: PrometheusCollectorRegistry,
        stalls: EventLoopStalls = EventLoopStalls(), logger: Logger
    ) {
        self.group = group
        self.warnAfter = warnAfter
        lag = registry.makeDurationHistogram(name: "stackmob_event_loop_lag_seconds", labels: [], buckets: Self.buckets, help: Self.help)
        self.logger = logger
        self.stalls = stalls
    }

    func run() async throws {
        let checks = group.makeIterator().map { loop in
            loop.scheduleRepeatedTask(initialDelay: Self.interval, delay: Self.interval) { [self] task in self.check(loop) }
        }
        // Until the server shuts down.
        try? await gracefulShutdown()
        for check in checks { check.cancel() }
    }

    /// Each loop's next check is due `interval` after its last one ended (a repeated task's
    /// delay counts from the end of the run before).
    private let due = Mutex<[ObjectIdentifier: NIODeadline]>([:])

    private func check(_ loop: any EventLoop) {
        let now = NIODeadline.now()
        let key = ObjectIdentifier(loop)
        let expected = due.withLock { due in
            defer { due[key] = now + Self.interval }
            return due[key]
        }
        guard let expected else { return }
        let late = max(0, (now - expected).nanoseconds)
        lag.recordNanoseconds(late)
        guard late >= warnAfter.nanoseconds else { return }
        stalls.record(lateNanoseconds: late)
        let report: (count: Int, worst: Int64)? = unlogged.withLock { unlogged in
            unlogged.count += 1
            unlogged.worst = max(unlogged.worst, late)
            if let last = unlogged.lastLogged, now - last < .seconds(10) { return nil }
            defer { unlogged = (0, 0, now) }
            return (unlogged.count, unlogged.worst)
        }
        if let report {
            logger.warning(
                "Event loop stalled: work ran on it that should not have, and its connections waited",
                metadata: ["sm.stall.worst_ms": "\(report.worst / 1_000_000)", "sm.stall.count": "\(report.count)"])
        }
    }
}
