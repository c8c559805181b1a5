import NIOCore
import NIOPosix
import Testing

@testable import StackMobHTTPServer

/// Requests run on their connection's event loop (`EventLoopTaskExecutor`).
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
}
