import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// Work a request's size decides is done on threads of its own (`LoopWork.threads`), apart from
/// Swift's shared pool, on which every connection starts and the failure limits and the
/// password gate wait (docs/architecture.md, "The event-loop rule").
@Suite("Request-sized work apart from the shared pool", .tags(.timing))
struct SharedPoolTests {
    /// Objects one object names: each expanded read of it reads, assembles and writes them all
    /// (2 MB of text), far more work than reading the ids it names.
    static let namedItems = 20_000
    /// Expanded reads sent at once, each on a connection closed as soon as it is sent.
    static let abandoned = 48

    /// SQLite only: on PostgreSQL postgres-nio decodes every related row on an event loop, and
    /// 48 such expansions hold the loops themselves for seconds (docs/architecture.md, "The
    /// event-loop rule"), which the work threads do not change.
    @Test(
        "expansions whose clients sent them and left keep neither a new connection's read nor a login waiting",
        .disabled(if: TestServer.postgreSQLURL != nil, "postgres-nio decodes the related rows on the connections' loops"))
    func abandonedExpansions() async throws {
        try await SpawnedServer.with { client, server in
            #expect(try await client.post("/small", ["small_id": "s1", "text": "small"]).status == .created)
            #expect(try await client.post("/user", ["username": "u1", "password": "pw"]).status == .created)
            for start in stride(from: 0, to: Self.namedItems, by: 2_500) {
                let items = (start..<(start + 2_500)).map { JSONValue.object(["item_id": .string("i\($0)"), "n": .integer(Int64($0))]) }
                #expect(try await client.post("/item", .array(items)).status == .ok)
            }
            let ids = (0..<Self.namedItems).map { JSONValue.string("i\($0)") }
            let bag = try await client.post("/bag", .object(["bag_id": "bag", "items": .array(ids)]), headers: ["X-StackMob-Relations": "items=item"])
            #expect(bag.status == .created, "\(bag.text.prefix(300))")
            // How long one such expansion takes alone, for the bound below.
            let clock = ContinuousClock()
            let alone = try await clock.measure {
                let expanded = try await client.get("/bag/bag", headers: ["X-StackMob-Expand": "1"])
                let namesThemAll = expanded.text.contains("\"item_id\":\"i\(Self.namedItems - 1)\"")
                #expect(expanded.status == .ok && namesThemAll, "\(expanded.status) \(expanded.text.prefix(300))")
            }
            for _ in 0..<Self.abandoned {
                let connection = try await RawConnection.connect(port: client.port)
                try await connection.send(HTTP1ConnectionTests.request("GET", "/bag/bag", headers: ["X-StackMob-Expand: 1"]))
                await connection.close()
            }
            // Meanwhile, on new connections, five times: a small read, then a login. Before, both
            // waited for the shared pool's threads, which the expansions held for seconds.
            var read = Duration.zero
            var login = Duration.zero
            for _ in 0..<5 {
                read = max(read, try await clock.measure {
                    let connection = try await RawConnection.connect(port: client.port)
                    try await connection.send(HTTP1ConnectionTests.request("GET", "/small/s1"))
                    #expect(try await connection.response(timeout: .seconds(60))?.status == 200)
                    await connection.close()
                })
                login = max(login, try await clock.measure {
                    let connection = try await RawConnection.connect(port: client.port)
                    let form = "username=u1&password=pw&token_type=mac"
                    try await connection.send(
                        HTTP1ConnectionTests.request(
                            "POST", "/user/accessToken", headers: ["Content-Type: application/x-www-form-urlencoded"], body: form))
                    #expect(try await connection.response(timeout: .seconds(60))?.status == 200)
                    await connection.close()
                })
                try await Task.sleep(for: .milliseconds(200))
            }
            // The expansions queued take `abandoned` times `alone` of these threads' time; a read
            // or a login that waited for them waited seconds (2.7 to 6 in a debug build here).
            // Each abandoned read also decodes the object, 20,000 ids, on its loop before its
            // expansion moves: on a busy machine that alone has delayed a read by 0.7 s.
            let bound = max(.milliseconds(1_500), alone * 3)
            #expect(read < bound, "the slowest read on a new connection took \(read) (one expansion alone: \(alone)): \(server.log.suffix(1_000))")
            #expect(login < bound, "the slowest login on a new connection took \(login) (one expansion alone: \(alone))")
        }
    }
}
