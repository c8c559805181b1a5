import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

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
            #expect(whole.status == 200 && Self.isWholeList(whole.body), "\(whole.status) \(whole.body.prefix(300))")
            let baseline = try server.peakResidentKiB()

            // 32 at once from the same client. Before they were counted, each held its related
            // objects and its text while it read its second batch.
            let answers = try await withThrowingTaskGroup(of: RawConnection.Response.self) { group in
                for _ in 0..<32 {
                    group.addTask { try await Self.read(port: client.port) }
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
                    #expect(answer.status == 200 && Self.isWholeList(answer.body), "\(answer.status) \(answer.body.prefix(300))")
                }
            }
            #expect(refused > 0, "none of \(answers.count) refused")
            // The peak past what the server held with one answer behind it: a few answers' worth
            // (the one that is alone in the share always fits, and the answers being taken),
            // not two dozen.
            let grown = (try server.peakResidentKiB() - baseline) / 1024
            #expect(grown < 400, "the server's peak grew by \(grown) MiB")

            // Once they are answered, the client's share is back.
            #expect(try await eventually {
                let again = try await Self.read(port: client.port)
                return again.status == 200 && Self.isWholeList(again.body)
            })
        }
    }

    /// The holders, expanded, on a connection of its own.
    static func read(port: Int) async throws -> RawConnection.Response {
        let connection = try await RawConnection.connect(port: port)
        defer { Task { await connection.close() } }
        try await connection.send(HTTP1ConnectionTests.request("GET", "/holder?_expand=1"))
        return try #require(try await connection.response(timeout: .seconds(120)))
    }

    /// Whether `body` is the list of every holder, each with its related object whole.
    static func isWholeList(_ body: String) -> Bool {
        guard case .array(let holders)? = try? JSONParser.parse(Array(body.utf8)), holders.count == Self.holders else { return false }
        return holders.allSatisfy { $0.objectValue?["blob"]?.objectValue?["text"] == .string(blobText) }
    }
}
