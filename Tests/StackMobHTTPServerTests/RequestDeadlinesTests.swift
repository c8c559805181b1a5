import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import StackMobHTTPServer

/// The shared deadline timer behind `limits.request_timeout_seconds`; the 504 itself is tested
/// end to end in StackMobHTTPTests (`CustomCodeTests.requestTimeout`).
@Suite("Request deadlines", .tags(.timing))
struct RequestDeadlinesTests {
    @Test("a passed deadline expires within a tick; a removed one never does; the timer stops once no request is left")
    func expireAndRemove() async throws {
        let deadlines = RequestDeadlines(tick: .milliseconds(20))
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let expired = Mutex<[String]>([])
        _ = deadlines.add(deadline: .now() + .milliseconds(50), on: eventLoop) { expired.withLock { $0.append("due") } }
        let removed = deadlines.add(deadline: .now() + .milliseconds(50), on: eventLoop) { expired.withLock { $0.append("removed") } }
        let later = deadlines.add(deadline: .now() + .seconds(60), on: eventLoop) { expired.withLock { $0.append("later") } }
        deadlines.remove(removed)
        try await Task.sleep(for: .milliseconds(300))
        #expect(expired.withLock { $0 } == ["due"])
        #expect(deadlines.count == 1)
        deadlines.remove(later)
        #expect(deadlines.count == 0)
        try await Task.sleep(for: .milliseconds(100))
        #expect(!deadlines.isTicking, "no request in progress: no timer")
        // A new request arms it again.
        _ = deadlines.add(deadline: .now(), on: eventLoop) { expired.withLock { $0.append("again") } }
        try await Task.sleep(for: .milliseconds(300))
        #expect(expired.withLock { $0 } == ["due", "again"])
    }
}
