import StackMobCore
import StackMobTestSupport
import Testing

/// A read of a request runs on its event loop within a limit of SQLite's steps, and one that goes
/// over runs again through GRDB's pool (`SQLitePool.read`; docs/architecture.md, "The event-loop
/// rule"): the client sees the same answer either way. On PostgreSQL the same requests answer the
/// same.
@Suite("Reads longer than the event loop's step limit")
struct LongReadTests {
    /// Enough objects that a scan of them, sorted by an unindexed field, with its total, takes
    /// SQLite several times the limit's 100,000 steps.
    static let count = 30_000

    @Test("a page that scans and sorts every object, with its total, answers as a short one does")
    func longPage() async throws {
        try await TestServer.run { client in
            // Batches of 500: a debug build writing 1,000 objects to PostgreSQL, beside the rest
            // of the parallel suite, came near the test client's 20 s read timeout.
            for start in stride(from: 0, to: Self.count, by: 500) {
                let batch: [JSONValue] = (start..<(start + 500)).map { n in ["row_id": .string("r\(n)"), "n": .integer(Int64(n)), "name": "row"] }
                let created = try await client.post("/row", .array(batch))
                #expect(created.status == .ok, "\(created.text.prefix(300))")
            }
            let page = try await client.get(
                "/row?name[lt]=zzz", headers: ["X-StackMob-OrderBy": "n:desc", "Range": "objects=0-4"])
            #expect(page.status == .partialContent, "\(page.text.prefix(300))")
            #expect(page.header("Content-Range") == "objects 0-4/\(Self.count)")
            #expect(page.array?.compactMap { $0.objectValue?["n"]?.integerValue } == (0..<5).map { Int64(Self.count - 1 - $0) })

            // A short read on the same loops right after: the long one left its connection as
            // it found it.
            let one = try await client.get("/row?n=7")
            #expect(one.status == .ok && one.array?.count == 1, "\(one.text.prefix(300))")
        }
    }
}
