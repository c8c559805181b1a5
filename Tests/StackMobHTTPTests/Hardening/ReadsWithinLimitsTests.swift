import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// A read with a byte limit (a batch of a long answer, an expansion's related objects) stops
/// reading where the limit is passed: the rows after it must not reach the server either. On
/// PostgreSQL they used to: the statement sent every row it matched, and the server dropped those
/// past the limit, so a client could make it move a hundred times the bytes it answered with, or
/// any amount for a refusal. Now, once a schema's read has passed its limit, PostgreSQL stops
/// sending its later reads' rows there (`RowsWithinBytes`): each test reads twice and weighs the
/// second read.
///
/// What is measured is everything the test process reads (`rchar` of /proc/self/io): the rows
/// from the database, and the answer the test client reads. It is tagged `.timing` so that
/// nothing else runs beside it (docs/testing.md, "Timing-sensitive suites"). On PostgreSQL only:
/// a SQLite statement stops where the server stops stepping it, and the file's pages it reads,
/// which this measure would count, are the statement's own work (a sort reads every row it sorts).
@Suite(
    "Reads with a byte limit read little past it on PostgreSQL", .tags(.timing), .serialized,
    .enabled(if: TestServer.postgreSQLURL != nil, "PostgreSQL only"),
    .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/io"), "reads /proc/self/io (Linux)"))
struct ReadsWithinLimitsTests {
    /// Forty objects of a megabyte: ten times a batch's 4 MiB (`Datastore.batchBytes`).
    static let count = 40
    static let size = 1_000_000

    /// The bytes this process has read so far.
    static func bytesRead() throws -> Int {
        let io = try String(contentsOfFile: "/proc/self/io", encoding: .utf8)
        let line = try #require(io.split(separator: "\n").first { $0.hasPrefix("rchar:") })
        return try #require(Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)))
    }

    static func seedBlobs(_ client: StackMobClient) async throws -> [JSONValue] {
        let text = String(repeating: "x", count: size)
        var ids: [JSONValue] = []
        for index in 0..<count {
            let id = String(format: "b%02d", index)
            let created = try await client.post("/blob", ["blob_id": .string(id), "text": .string(text), "n": .integer(Int64(index))])
            #expect(created.status == .created, "\(created.text.prefix(300))")
            ids.append(.string(id))
        }
        return ids
    }

    @Test("an expansion refused past limits.max_expanded_response_bytes reads about the limit, not every related object")
    func refusedExpansion() async throws {
        let limit = 4 << 20
        try await TestServer.run(configure: { $0.maxExpandedResponseBytes = limit }) { client in
            let ids = try await Self.seedBlobs(client)
            let holder = try await client.post("/holder", ["holder_id": "h", "items": .array(ids)], headers: ["X-StackMob-Relations": "items=blob"])
            #expect(holder.status == .created, "\(holder.text.prefix(300))")
            #expect(try await client.get("/holder/h", headers: ["X-StackMob-Expand": "1"]).status == .badRequest)
            let before = try Self.bytesRead()
            let refused = try await client.get("/holder/h", headers: ["X-StackMob-Expand": "1"])
            let read = try Self.bytesRead() - before
            #expect(refused.status == .badRequest, "\(refused.text.prefix(300))")
            // The limit and the object that passes it, and some slack: not forty megabytes.
            #expect(read < 3 * limit, "read \(read) bytes for a refusal at \(limit)")
        }
    }

    @Test("a long list of large objects reads each object about once, not once per batch that could hold it")
    func listOfLargeObjects() async throws {
        try await TestServer.run { client in
            _ = try await Self.seedBlobs(client)
            #expect(try await client.get("/blob", headers: ["X-StackMob-OrderBy": "n:asc"]).status == .ok)
            let before = try Self.bytesRead()
            let list = try await client.get("/blob", headers: ["X-StackMob-OrderBy": "n:asc"])
            let read = try Self.bytesRead() - before
            #expect(list.status == .ok)
            let objects = try #require(list.array).compactMap(\.objectValue)
            #expect(objects.compactMap { $0["n"]?.integerValue } == (0..<Int64(Self.count)).map { $0 })
            // Whole, and without the count PostgreSQL adds.
            #expect(objects.allSatisfy { $0.keys.sorted() == ["blob_id", "createddate", "lastmoddate", "n", "text"] }, "\(objects.first.map { Array($0.keys) } ?? [])")
            // The answer, read by the client, and the objects, read by the server: about twice
            // the objects' bytes. Each batch used to be sent every object left, and keep four.
            let stored = Self.count * Self.size
            #expect(read < 3 * stored, "read \(read) bytes for \(stored) bytes of objects")
        }
    }
}
