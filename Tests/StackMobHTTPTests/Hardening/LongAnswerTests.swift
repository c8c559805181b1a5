import Foundation
import HTTPTypes
import StackMobCore
import StackMobTestSupport
import Testing

/// A list without `Range` returns every matching object, as the SDKs expect, however many are
/// stored; a request holds one batch of them at a time (`Datastore.queryBatchSize`), and the
/// answer is streamed (docs/architecture.md, "Memory per request").
@Suite("Long answers are read and written in batches")
struct LongAnswerTests {
    /// Several first batches (`Datastore.queryBatchSize`) long; `n[gte]=400` matches fewer than one.
    static let count = 457

    /// `count` notes, `n` 0 ..< count, created in batches of 100.
    static func seed(_ client: StackMobClient, headers: [String: String] = [:], extra: (Int) -> JSONObject = { _ in [:] }) async throws {
        for start in stride(from: 0, to: count, by: 100) {
            let notes = (start..<min(start + 100, count)).map { index -> JSONValue in
                var note: JSONObject = ["note_id": .string(String(format: "n%04d", index)), "n": .integer(Int64(index))]
                note.merge(extra(index)) { $1 }
                return .object(note)
            }
            let created = try await client.post("/note", .array(notes), headers: headers)
            #expect(created.status == .ok || created.status == .created, "\(created.text.prefix(300))")
        }
    }

    @Test("a list of more than a batch is streamed whole and in order; a page of more than a batch has its Content-Range, and HEAD the same")
    func streamedList() async throws {
        #expect(Self.count > 2 * Datastore.queryBatchSize && Self.count - 400 < Datastore.queryBatchSize)
        try await TestServer.run { client in
            try await Self.seed(client)
            let all = try await client.get("/note", headers: ["X-StackMob-OrderBy": "n:asc"])
            #expect(all.status == .ok)
            // Written as it is read: no length is known when the head is sent.
            #expect(all.headers[.contentLength] == nil)
            #expect(all.headers[.contentType] == "application/json; charset=utf-8")
            let numbers = try #require(all.array).compactMap { $0.objectValue?["n"]?.integerValue }
            #expect(numbers == (0..<Int64(Self.count)).map { $0 })

            let page = try await client.get("/note", headers: ["X-StackMob-OrderBy": "n:desc", "Range": "objects=10-309"])
            #expect(page.status == .partialContent)
            #expect(page.headers[.contentRange] == "objects 10-309/\(Self.count)")
            let pageNumbers = try #require(page.array).compactMap { $0.objectValue?["n"]?.integerValue }
            #expect(pageNumbers == (Int64(Self.count) - 310..<Int64(Self.count) - 10).reversed().map { $0 })

            let head = try await client.head("/note", headers: ["X-StackMob-OrderBy": "n:desc", "Range": "objects=10-309"])
            #expect(head.status == .partialContent && head.body.isEmpty)
            #expect(head.headers[.contentRange] == "objects 10-309/\(Self.count)")

            // Filters, selections and a small answer (one buffer, with its length) as before.
            let filtered = try await client.get("/note?n[gte]=400", headers: ["X-StackMob-Select": "n", "X-StackMob-OrderBy": "n:asc"])
            #expect(filtered.headers[.contentLength] != nil)
            #expect(try #require(filtered.array).map { $0.objectValue?.keys.sorted() ?? [] }.allSatisfy { $0 == ["n", "note_id"] })
            #expect(filtered.array?.count == Self.count - 400)
        }
    }

    @Test("a page whose objects pass the first read's bytes is streamed, whole and in order: a page's length does not bound its memory")
    func largeObjectsInBatches() async throws {
        // Twelve notes of 600 KB: a page of ten passes `Datastore.batchBytes` at the seventh.
        let text = String(repeating: "x", count: 600_000)
        #expect(7 * text.utf8.count > Datastore.batchBytes && 6 * text.utf8.count < Datastore.batchBytes)
        try await TestServer.run { client in
            for index in 0..<12 {
                let created = try await client.post("/note", ["note_id": .string("n\(index)"), "n": .integer(Int64(index)), "text": .string(text)])
                #expect(created.status == .created, "\(created.text.prefix(300))")
            }
            let page = try await client.get("/note", headers: ["X-StackMob-OrderBy": "n:asc", "Range": "objects=0-9"])
            #expect(page.status == .partialContent)
            #expect(page.headers[.contentRange] == "objects 0-9/12")
            // Read and written in parts, the first of them within the bytes: no length ahead.
            #expect(page.headers[.contentLength] == nil)
            let notes = try #require(page.array).compactMap(\.objectValue)
            #expect(notes.compactMap { $0["n"]?.integerValue } == Array(0..<10))
            #expect(notes.allSatisfy { $0["text"] == .string(text) })

            let all = try await client.get("/note", headers: ["X-StackMob-OrderBy": "n:desc", "X-StackMob-Select": "n"])
            #expect(try #require(all.array).compactMap { $0.objectValue?["n"]?.integerValue } == Array((0..<12).reversed()))
        }
    }

    @Test("an expansion stops reading related objects once their stored bytes pass limits.max_expanded_response_bytes, whatever the selection keeps; a write past it answers unexpanded")
    func expansionReadsWithinTheLimit() async throws {
        try await TestServer.run(configure: { $0.maxExpandedResponseBytes = 256 * 1024 }) { client in
            // Sixty tags of 5,000 bytes: 300,000 bytes of related objects, past the limit.
            let text = String(repeating: "x", count: 5_000)
            let tags = (0..<60).map { JSONValue.object(["tag_id": .string(String(format: "t%02d", $0)), "text": .string(text)]) }
            #expect(try await client.post("/tag", .array(tags)).status == .ok)
            let tagIDs = (0..<60).map { JSONValue.string(String(format: "t%02d", $0)) }
            let created = try await client.post("/note", ["note_id": "many", "tags": .array(tagIDs)], headers: ["X-StackMob-Relations": "tags=tag"])
            #expect(created.status == .created, "\(created.text.prefix(300))")
            #expect(try await client.post("/note", ["note_id": "few", "tags": .array(Array(tagIDs[0..<10]))]).status == .created)
            // The selection keeps a few bytes of each tag, but every tag would be read first,
            // and a relation may name far more objects than these: refused as they are read.
            for path in ["/note/many?_expand=1", "/note?_expand=1&note_id=many"] {
                let refused = try await client.get(path, headers: ["X-StackMob-Select": "tags.tag_id"])
                #expect(refused.status == .badRequest, "\(path): \(refused.status)")
                #expect(refused.error?.contains("(limits.max_expanded_response_bytes)") == true, "\(refused.text.prefix(300))")
            }
            // Within the limit, the same read answers.
            let few = try await client.get("/note/few?_expand=1", headers: ["X-StackMob-Select": "tags.tag_id"])
            #expect(few.status == .ok, "\(few.text.prefix(300))")
            #expect(few.object?["tags"]?.arrayValue?.count == 10)
            // A write is done before its answer is made: past the limit, it answers with the
            // relations as ids, as without expansion, rather than a refusal the SDK would retry.
            let written = try await client.post(
                "/note", ["note_id": "more", "tags": .array(tagIDs)], headers: ["X-StackMob-Relations": "tags=tag", "X-StackMob-Expand": "1"])
            #expect(written.status == .created, "\(written.text.prefix(300))")
            #expect(written.object?["tags"] == .array(tagIDs))
            let updated = try await client.put("/note/more", ["title": "t"], headers: ["X-StackMob-Expand": "1"])
            #expect(updated.status == .ok, "\(updated.text.prefix(300))")
            #expect(updated.object?["tags"] == .array(tagIDs) && updated.object?["title"] == "t")
            let fewWritten = try await client.put("/note/few", ["title": "t"], headers: ["X-StackMob-Expand": "1"])
            #expect(fewWritten.object?["tags"]?.arrayValue?.first?.objectValue?["text"] == .string(text), "within the limit, expanded")
        }
    }

    @Test("a long expanded list is built within limits.max_expanded_response_bytes a batch at a time, and refused past it")
    func expandedInBatches() async throws {
        try await TestServer.run(configure: { $0.maxExpandedResponseBytes = 256 * 1024 }) { client in
            #expect(try await client.post("/tag", ["tag_id": "t", "text": .string(String(repeating: "x", count: 100))]).status == .created)
            try await Self.seed(client, headers: ["X-StackMob-Relations": "tag=tag"]) { _ in ["tag": "t"] }
            // 457 notes of about 200 bytes each: under 256 KiB; with a 2 KB tag each, over.
            let expanded = try await client.get("/note?_expand=1", headers: ["X-StackMob-OrderBy": "n:asc"])
            #expect(expanded.status == .ok, "\(expanded.text.prefix(300))")
            let notes = try #require(expanded.array)
            #expect(notes.count == Self.count)
            #expect(notes.last?.objectValue?["tag"]?.objectValue?["text"] == .string(String(repeating: "x", count: 100)))
            // Past the limit, before anything is sent: a 400 naming it.
            #expect(try await client.put("/tag/t", ["text": .string(String(repeating: "y", count: 2_000))]).status == .ok)
            let refused = try await client.get("/note?_expand=1")
            #expect(refused.status == .badRequest)
            #expect(refused.error?.contains("(limits.max_expanded_response_bytes)") == true, "\(refused.text.prefix(300))")
        }
    }
}
