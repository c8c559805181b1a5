import NIOCore
import Synchronization

/// The deadlines of the requests in progress on one listener, checked by one timer a few times a
/// second, rather than a timer per request.
///
/// Arming and cancelling a NIO timer from the thread a request runs on takes the event loop's lock
/// and wakes the loop twice (each request's `scheduleTask` and `cancel`), a measurable share of a
/// read by id (docs/benchmarks.md, "Figures behind design choices"). Here a request registers its
/// deadline in a dictionary and removes it when done; the timer runs only while some request is in
/// progress. The price is precision: a request is stopped up to one `tick` after its deadline, on
/// limits counted in whole seconds.
final class RequestDeadlines: Sendable {
    private struct Entry {
        let deadline: NIODeadline
        let expire: @Sendable () -> Void
    }

    private struct State {
        var nextID: UInt64 = 0
        var entries: [UInt64: Entry] = [:]
        /// The timer is armed: it re-arms itself while `entries` is not empty.
        var ticking = false
    }

    private let tick: TimeAmount
    private let state = Mutex(State())

    init(tick: TimeAmount = .milliseconds(250)) {
        self.tick = tick
    }

    /// Calls `expire`, on an event loop thread, once `deadline` has passed, unless `remove` was
    /// called first. The timer is armed on `eventLoop` if it is not running.
    func add(deadline: NIODeadline, on eventLoop: any EventLoop, expire: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, arm) = state.withLock { state in
            state.nextID += 1
            state.entries[state.nextID] = Entry(deadline: deadline, expire: expire)
            let arm = !state.ticking
            state.ticking = true
            return (state.nextID, arm)
        }
        if arm { schedule(on: eventLoop) }
        return id
    }

    func remove(_ id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    /// Requests in progress (tests).
    var count: Int { state.withLock { $0.entries.count } }
    /// The timer is armed (tests).
    var isTicking: Bool { state.withLock { $0.ticking } }

    private func schedule(on eventLoop: any EventLoop) {
        eventLoop.scheduleTask(in: tick) { self.check(on: eventLoop) }
    }

    /// Expires what is due; re-arms while requests remain, so an idle server has no timer.
    private func check(on eventLoop: any EventLoop) {
        let now = NIODeadline.now()
        let (due, rearm) = state.withLock { state in
            var due: [@Sendable () -> Void] = []
            for (id, entry) in state.entries where entry.deadline <= now {
                due.append(entry.expire)
                state.entries[id] = nil
            }
            state.ticking = !state.entries.isEmpty
            return (due, state.ticking)
        }
        for expire in due { expire() }
        if rearm { schedule(on: eventLoop) }
    }
}
