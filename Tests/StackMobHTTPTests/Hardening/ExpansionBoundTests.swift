import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// An expansion repeats each related object in every object that names it, so the size of an
/// expanded answer is the request's choice: a few stored megabytes made half a gigabyte.
/// `limits.max_expanded_response_bytes` bounds what one request may hold; HEAD builds no body.
@Suite("An expanded answer is bounded")
struct ExpansionBoundTests {
    @Test("an expansion past the limit is refused with a 400 naming it; a smaller page of the same, HEAD and the plain list are answered")
    func bounded() async throws {
        try await TestServer.run(configure: { $0.maxExpandedResponseBytes = 64 * 1024 }) { client in
            let filler = String(repeating: "x", count: 2_000)
            for index in 0..<10 {
                #expect(try await client.post("/tag", ["tag_id": .string("t\(index)"), "text": .string(filler)]).status == .created)
            }
            let tags = JSONValue.array((0..<10).map { JSONValue.string("t\($0)") })
            for index in 0..<20 {
                let post = try await client.post(
                    "/post", ["post_id": .string(String(format: "p%02d", index)), "tags": tags], headers: ["X-StackMob-Relations": "tags=tag"])
                #expect(post.status == .created, "\(post.text)")
            }
            // 20 posts × 10 tags × 2 KB: about 400 KB from 20 KB stored.
            let refused = try await client.get("/post?_expand=1")
            #expect(refused.status == .badRequest, "\(refused.status.code)")
            #expect(refused.error?.contains("limit of 65536 bytes (limits.max_expanded_response_bytes)") == true, "\(refused.text.prefix(300))")

            let page = try await client.get("/post?_expand=1", headers: ["Range": "objects=0-1", "X-StackMob-OrderBy": "post_id:asc"])
            #expect(page.status == .partialContent && page.array?.count == 2)
            #expect(page.array?.first?.objectValue?["tags"]?.arrayValue?.first?.objectValue?["text"] == .string(filler))
            #expect(try await client.get("/post/p01?_expand=1").object?["tags"]?.arrayValue?.count == 10)
            #expect(try await client.get("/post").array?.count == 20, "without expansion the whole list, as the SDKs expect")

            let head = try await client.request(.head, "/post?_expand=1", headers: ["Range": "objects=0-4"])
            #expect(head.status == .partialContent && head.text.isEmpty)
            #expect(head.headers[.contentRange] == "objects 0-4/20")
        }
    }
}
