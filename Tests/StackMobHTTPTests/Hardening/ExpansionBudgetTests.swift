import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What an expansion builds, its related objects and its text, counts against its client's
/// share of the body budgets as it grows (`CountedAnswerMemory`, docs/operations.md, "Limits"):
/// a client asking for many large expansions at once is refused with `503`s, rather than the
/// server building each up to `limits.max_expanded_response_bytes` before anything counts it.
/// Against a spawned server, whose peak memory is its own. Tagged `.timing`: it moves hundreds of
/// megabytes, which a suite running beside it slows past the client's timeouts
/// (docs/testing.md, "Timing-sensitive suites").
@Suite("An expansion counts against its client's share as it is built", .tags(.timing))
struct ExpansionBudgetTests {
    static let megabyte = 1024 * 1024
    /// Holders each naming a related object of 300 KB of its own: a list of them, expanded,
    /// reads 30 MB of related objects and writes as much text, in two batches
    /// (`JSONArrayResponse`), within `limits.max_expanded_response_bytes` (32 MiB).
    static let holders = 101
    static let blobText = String(repeating: "b", count: 300_000)

    @Test(
        "many large expansions from one client at once: each answers whole or is refused with a 503 and Retry-After, and the server's memory stays near one client's share, not the sum of the answers"
    )
    func concurrentExpansions() async throws {
        try await SpawnedServer.with(settings: { _ in
            [
                "STACKMOB_LIMITS__MAX_BODY_BYTES": "\(2 * Self.megabyte)",
                "STACKMOB_LIMITS__MAX_BODY_BYTES_PER_CLIENT": "\(8 * Self.megabyte)",
                "STACKMOB_LIMITS__MAX_BODY_BYTES_IN_FLIGHT": "\(16 * Self.megabyte)",
            ]
        }) { client, server in
            for start in stride(from: 0, to: Self.holders, by: 5) {
                let blobs = (start..<min(start + 5, Self.holders)).map { JSONValue.object(["blob_id": .string("b\($0)"), "text": .string(Self.blobText)]) }
                #expect(try await client.post("/blob", .array(blobs)).status == .ok)
            }
            let holders = (0..<Self.holders).map { JSONValue.object(["holder_id": .string(String(format: "h%03d", $0)), "blob": .string("b\($0)")]) }
            let created = try await client.post("/holder", .array(holders), headers: ["X-StackMob-Relations": "blob=blob"])
            #expect(created.status == .ok, "\(created.text.prefix(300))")
            // Alone, it answers whole.
            let whole = try await Self.read(port: client.port)
            // Bodies of megabytes are checked into a Bool first: an expectation that fails prints
            // the values of its parts.
            let isWhole = Self.isWholeList(whole.body)
            #expect(whole.status == 200 && isWhole, "\(whole.status) \(whole.body.prefix(300))")
            let baseline = try server.peakResidentKiB()

            // 32 at once from the same client, in each spelling the handlers accept. Before they
            // were counted, each held its related objects and its text while it read its second
            // batch; and a percent-encoded `_expand` was once not counted.
            let answers = try await withThrowingTaskGroup(of: RawConnection.Response.self) { group in
                for request in 0..<32 {
                    group.addTask { try await Self.read(port: client.port, spelling: request % Self.spellings.count) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            var refused = 0
            for answer in answers {
                if answer.status == 503 {
                    refused += 1
                    #expect(answer.headers["retry-after"] == "1", "\(answer.headers)")
                    #expect(answer.body.contains("Too many large answers to this client at once"), "\(answer.body.prefix(300))")
                } else {
                    let isWhole = Self.isWholeList(answer.body)
                    #expect(answer.status == 200 && isWhole, "\(answer.status) \(answer.body.prefix(300))")
                }
            }
            #expect(refused > 0, "none of \(answers.count) refused")
            // The first of them to need the room may pass the share: they never all fail for
            // one another.
            #expect(refused < answers.count, "all \(answers.count) refused")
            // The peak past what the server held with one answer behind it: a few answers' worth
            // (the first builder's, and the answers being taken), not two dozen.
            let grown = (try server.peakResidentKiB() - baseline) / 1024
            #expect(grown < 150, "the server's peak grew by \(grown) MiB")

            // Once they are answered, the client's share is back.
            #expect(try await eventually {
                let again = try await Self.read(port: client.port)
                return again.status == 200 && Self.isWholeList(again.body)
            })
        }
    }

    @Test(
        "a small expansion is never refused for others' large bodies: it builds within what is never counted; a larger one is refused while the budgets are full",
        BodyBudgetTests.answersTaken)
    func smallExpansionGoesThrough() async throws {
        try await TestServer.run(configure: BodyBudgetTests.smallBudgets) { client in
            let tags = (0..<5).map { JSONValue.object(["tag_id": .string("t\($0)"), "text": "small"]) }
            #expect(try await client.post("/tag", .array(tags)).status == .ok)
            let named = JSONValue.array((0..<5).map { .string("t\($0)") })
            let created = try await client.post("/tiny", ["tiny_id": "s", "tags": named], headers: ["X-StackMob-Relations": "tags=tag"])
            #expect(created.status == .created, "\(created.text.prefix(300))")
            // 100 KB of related objects: past what is never counted.
            let wide = (0..<5).map { JSONValue.object(["tag_id": .string("w\($0)"), "text": .string(String(repeating: "w", count: 20_000))]) }
            #expect(try await client.post("/tag", .array(wide)).status == .ok)
            let wideNamed = JSONValue.array((0..<5).map { .string("w\($0)") })
            #expect(try await client.post("/tiny", ["tiny_id": "w", "tags": wideNamed]).status == .created)

            // Two other clients each hold a body of the whole limit begun: the listener's
            // budget (2 MiB) is full.
            let body = BodyBudgetTests.body(bytes: BodyBudgetTests.megabyte)
            let first = try await BodyBudgetTests.begin(body, from: "203.0.113.70", port: client.port)
            let second = try await BodyBudgetTests.begin(body, from: "203.0.113.71", port: client.port)
            #expect(
                try await eventually {
                    try await BodyBudgetTests.counted(from: "203.0.113.72", port: client.port).status == 503
                })
            // A third client's small expansions answer, in each spelling. Before, each first took
            // 256 KiB ahead of its read, and was refused.
            for (query, headers) in Self.spellings {
                let small = try await BodyBudgetTests.read("/tiny/s" + query, from: "203.0.113.72", port: client.port, headers: headers)
                #expect(small.status == 200, "\(query) \(headers): \(small.status) \(small.body.prefix(300))")
                #expect(small.body.contains(#""text":"small""#), "\(small.body.prefix(300))")
            }
            // Its larger one is refused until there is room.
            let large = try await BodyBudgetTests.read("/tiny/w?_expand=1", from: "203.0.113.72", port: client.port)
            #expect(large.status == 503 && large.headers["retry-after"] == "1", "\(large.status) \(large.body.prefix(300))")
            // A write is done before its answer is built: its expansion, refused, gives way to
            // the relations as ids, rather than a refusal the SDK would send again.
            let write = try await RawConnection.connect(port: client.port)
            try await write.send(
                HTTP1ConnectionTests.request(
                    "PUT", "/tiny/w", headers: ["X-Forwarded-For: 203.0.113.72", "X-StackMob-Expand: 1"], body: #"{"title":"t"}"#))
            let written = try #require(try await write.response())
            await write.close()
            #expect(written.status == 200, "\(written.status) \(written.body.prefix(300))")
            #expect(written.body.contains(#""tags":["w0","w1","w2","w3","w4"]"#) && written.body.contains(#""title":"t""#), "\(written.body.prefix(300))")
            try await first.send(String(body.dropFirst(1000)))
            #expect(try await first.response()?.status == 201)
            try await second.send(String(body.dropFirst(1000)))
            #expect(try await second.response()?.status == 201)
            let answered = try await BodyBudgetTests.read("/tiny/w?_expand=1", from: "203.0.113.72", port: client.port)
            let expanded = answered.body.contains(String(repeating: "w", count: 20_000))
            #expect(answered.status == 200 && expanded, "\(answered.status)")
        }
    }

    @Test(
        "the first of a client's expansions may pass what its other expansions hold of its share, never what its unread answers hold: an expanded write then answers with ids",
        BodyBudgetTests.answersTaken)
    func firstBuilderWithinAnswers() async throws {
        try await TestServer.run(configure: BodyBudgetTests.answerBudgets) { client in
            // A bag naming three blobs of 2.5 MB: 7.5 MB expanded, most of A's 8 MiB share.
            let text = String(repeating: "z", count: 2_500_000)
            for blob in 0..<3 {
                #expect(try await client.post("/blob", ["blob_id": .string("z\(blob)"), "text": .string(text)]).status == .created)
            }
            let named = JSONValue.array((0..<3).map { .string("z\($0)") })
            let created = try await client.post("/bag", ["bag_id": "b", "blobs": named], headers: ["X-StackMob-Relations": "blobs=blob"])
            #expect(created.status == .created, "\(created.text.prefix(300))")
            // A reads it expanded and takes almost nothing: the answer holds A's share.
            var open: [Int32] = []
            defer { for socket in open { Glibc.close(socket) } }
            open.append(try await BodyBudgetTests.unread("/bag/b?_expand=1", from: "203.0.113.80", port: client.port))
            // A's expanded write is the only expansion A is building, so the first; it may not
            // pass what A's answer holds. Before, it did: each write's 7.5 MB answer counted
            // past the share, and one client held the listener's budget with them.
            let write = try await RawConnection.connect(port: client.port)
            try await write.send(
                HTTP1ConnectionTests.request(
                    "PUT", "/bag/b", headers: ["X-Forwarded-For: 203.0.113.80", "X-StackMob-Expand: 1"], body: #"{"title":"t"}"#))
            let written = try #require(try await write.response(timeout: .seconds(60)))
            await write.close()
            #expect(written.status == 200, "\(written.status) \(written.body.prefix(300))")
            let asIDs = written.body.contains(#""blobs":["z0","z1","z2"]"#)
            #expect(asIDs, "\(written.body.prefix(300))")
            // Another client's is built whole.
            let other = try await BodyBudgetTests.read("/bag/b?_expand=1", from: "203.0.113.81", port: client.port)
            let expanded = other.body.contains(text)
            #expect(other.status == 200 && expanded, "\(other.status)")
        }
    }

    /// The ways a request asks for expansion: the query parameter, with any of its letters
    /// percent-encoded or none, and the header.
    static let spellings: [(path: String, headers: [String])] = [
        ("?_expand=1", []), ("?%5Fexpand=1", []), ("?_%65xpand=1", []), ("", ["X-StackMob-Expand: 1"]),
    ]

    /// The holders, expanded, on a connection of its own.
    static func read(port: Int, spelling: Int = 0) async throws -> RawConnection.Response {
        let connection = try await RawConnection.connect(port: port)
        defer { Task { await connection.close() } }
        let (query, headers) = spellings[spelling]
        try await connection.send(HTTP1ConnectionTests.request("GET", "/holder" + query, headers: headers))
        return try #require(try await connection.response(timeout: .seconds(120)))
    }

    /// Whether `body` is the list of every holder, each with its related object whole.
    static func isWholeList(_ body: String) -> Bool {
        guard case .array(let holders)? = try? JSONParser.parse(Array(body.utf8)), holders.count == Self.holders else { return false }
        return holders.allSatisfy { $0.objectValue?["blob"]?.objectValue?["text"] == .string(blobText) }
    }
}
