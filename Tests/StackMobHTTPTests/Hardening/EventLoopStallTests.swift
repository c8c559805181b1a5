import Foundation
import HummingbirdTesting
import NIOCore
import NIOPosix
import StackMobCore
import StackMobTestSupport
import Testing

/// The event-loop rule (docs/architecture.md): nothing blocks a loop, and the stall detector
/// says when something does.
@Suite("Event-loop stalls", .tags(.timing))
struct EventLoopStallTests {
    /// The checks of `stackmob_event_loop_lag_seconds` that ran later than `seconds` (a bucket
    /// boundary), from `/metrics` over HTTP.
    static func checks(laterThan seconds: String, client: StackMobClient) async throws -> (late: Int, all: Int) {
        let metrics = try await client.withoutKey.get("/metrics")
        #expect(metrics.status == .ok)
        var within: Int?
        var all: Int?
        for line in metrics.text.split(separator: "\n") where line.hasPrefix("stackmob_event_loop_lag_seconds") {
            let value = line.split(separator: " ").last.flatMap { Int($0) }
            if line.hasPrefix("stackmob_event_loop_lag_seconds_bucket{le=\"\(seconds)\"}") { within = value }
            if line.hasPrefix("stackmob_event_loop_lag_seconds_count") { all = value }
        }
        let total = try #require(all, "no stackmob_event_loop_lag_seconds in /metrics")
        return (total - (try #require(within, "no bucket le=\(seconds)")), total)
    }

    @Test("a deliberately blocked event loop is recorded in /metrics and logged at warning")
    func blockedLoopIsCaught() async throws {
        try await MalformedRequestTests.withServer { api, _, log in
            try await TestClient.withClient(host: "127.0.0.1", port: api) { connection in
                let client = StackMobClient(connection: connection, port: api, publicKey: nil)
                // The detector's first check on each loop only starts its clock.
                #expect(try await eventually { try await Self.checks(laterThan: "0.5", client: client).all >= 4 })
                let before = try await Self.checks(laterThan: "0.5", client: client).late
                // One loop of the group the listeners serve on, held for 700 ms (the other suites'
                // servers share it: one loop, once, is what they wait for).
                let loop = MultiThreadedEventLoopGroup.singleton.next()
                try await loop.submit { usleep(700_000) }.get()
                #expect(try await eventually { try await Self.checks(laterThan: "0.5", client: client).late > before })
                #expect(log.all.contains { $0.level == .warning && $0.message.hasPrefix("Event loop stalled") })
            }
        }
    }

    @Test("storing a 7 MB upload stalls no event loop")
    func uploadDoesNotStall() async throws {
        // A server of its own: the other suites' servers share this process's event loops.
        try await SpawnedServer.with { client, server in
            #expect(try await eventually { try await Self.checks(laterThan: "0.5", client: client).all >= 4 })
            var generator = SystemRandomNumberGenerator()
            let bytes = (0..<7_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let envelope = BinaryFieldTests.envelope(bytes, filename: "big.bin", type: "application/octet-stream")
            for _ in 0..<3 {
                let created = try await client.post("/upload", .object(["file": .string(envelope)]))
                #expect(created.status == .created, "\(created.text.prefix(300))")
            }
            let (late, all) = try await Self.checks(laterThan: "0.5", client: client)
            #expect(all > 0)
            #expect(late == 0, "\(late) of \(all) checks ran more than 500 ms late: \(server.log.suffix(1_000))")
        }
    }
}
