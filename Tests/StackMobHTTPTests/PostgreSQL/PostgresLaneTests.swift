import NIOPosix
import StackMobCore
@testable import StackMobHTTPServer
@testable import StackMobPostgres
import StackMobTestSupport
import Testing

/// The pool's lanes: each event loop's share of the connections (`PostgresPool`).
@Suite("PostgreSQL pool lanes")
struct PostgresLaneTests {
    @Test("pool_size is shared over the event loops as evenly as it goes, with one lane at least")
    func sizes() {
        #expect(PostgresLane.sizes(poolSize: 10, loops: 2) == [5, 5])
        #expect(PostgresLane.sizes(poolSize: 7, loops: 3) == [3, 2, 2])
        #expect(PostgresLane.sizes(poolSize: 1, loops: 4) == [1])
        #expect(PostgresLane.sizes(poolSize: 3, loops: 1) == [3])
    }

    @Test("a caller takes its own loop's lane while it has a connection free, else the lane with the most free, and queues on its own when none has")
    func choice() {
        #expect(PostgresLane.choice(own: 1, free: [5, 1]) == 1)
        #expect(PostgresLane.choice(own: 1, free: [2, 0]) == 0)
        #expect(PostgresLane.choice(own: 0, free: [-3, 1, 4]) == 2)
        #expect(PostgresLane.choice(own: 1, free: [0, -2]) == 1)
        #expect(PostgresLane.choice(own: 0, free: [-1, 0]) == 0)
        // Off every lane's loop.
        #expect(PostgresLane.choice(own: nil, free: [1, 3]) == 1)
        #expect(PostgresLane.choice(own: nil, free: [-2, -4]) == 0)
    }

    @Test(
        "a caller on an event loop is given a connection on that loop, so that its query takes no hop to another thread",
        .enabled(if: TestServer.postgreSQLURL != nil, "needs STACKMOB_TEST_POSTGRESQL_URL"))
    func connectionsOnTheCallersLoop() async throws {
        try await TestServer.withDataDirectory { directory in
            let configuration = TestServer.configuration(dataDirectory: directory)
            let storage = try await TestServer.storage(configuration).open(.development, registry: SchemaRegistry(), indexes: [:])
            let engine = try #require(storage.engine as? PostgresStorageEngine)
            for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() {
                for _ in 0..<20 {
                    let onLoop = try await Task(executorPreference: EventLoopTaskExecutor(loop)) {
                        try await engine.database.withConnection { connection in connection.eventLoop === loop }
                    }.value
                    #expect(onLoop)
                }
            }
            try await engine.close()
        }
    }
}
