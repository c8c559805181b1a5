import Foundation
import NIOCore
import NIOPosix
import StackMobCore
@testable import StackMobHTTP
import Testing

/// Requests run on their connection's event loop (`EventLoopTaskExecutor`), and what is slow on
/// purpose does not.
@Suite("Event loop executor")
struct EventLoopTaskExecutorTests {
    @Test("a task preferring a loop's executor runs on that loop, across suspensions and in the tasks it starts for the request")
    func runsOnTheLoop() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let places = await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
            var places = [loop.inEventLoop]
            await Task.yield()
            places.append(loop.inEventLoop)
            // As `HTTP1Exchange` starts a request's task.
            places.append(await Task(executorPreference: EventLoopTaskExecutor(loop)) { loop.inEventLoop }.value)
            return places
        }
        #expect(places == [true, true, true])
    }

    @Test("password hashing leaves the loop free: work queued behind it on the loop runs long before the hash is done")
    func hashingOffTheLoop() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        // Ten times the default rounds: a quarter of a second or more on any machine.
        let hasher = PasswordHasher(rounds: 2_100_000)
        let clock = ContinuousClock()
        let start = clock.now
        let (loopFree, hashed) = try await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
            async let hash = hasher.hash("pw")
            // Let the hash start first.
            try await Task.sleep(for: .milliseconds(20))
            let loopFree = try await loop.submit { clock.now }.get()
            _ = try await hash
            return (loopFree, clock.now)
        }
        #expect(loopFree - start < (hashed - start) / 2, "the loop ran other work while the hash was computed")
    }
}
