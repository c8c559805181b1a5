import Foundation
import HummingbirdTesting
import StackMobCore
import StackMobTestSupport
import Testing

/// The related-object endpoints and atomic counters over HTTP (PROTOCOL §6.2–6.4, §6.7), including
/// concurrency: appends and increments never lose an update. Timing-sensitive (docs/testing.md):
/// 100 clients at once, each waiting for three writes, load the machine themselves.
@Suite("Related-object endpoints and atomic counters", .tags(.timing))
struct RelatedObjectEndpointTests {
    @Test("POST /<schema>/<id>/<field> creates related objects, infers the relation, creates a missing parent (D5)")
    func createRelated() async throws {
        try await TestServer.run { client in
            let response = try await client.post("/list/l1/items", [["items_id": "i1", "name": "milk"], ["name": "eggs"], 7])
            #expect(response.status == .ok)
            let succeededValues = try #require(response.object?["succeeded"]?.arrayValue)
            let succeeded = succeededValues.compactMap(\.stringValue)
            #expect(succeeded.count == 2)
            #expect(succeeded.first == "i1")
            #expect(response.object?["failed"]?.arrayValue?.count == 1)
            // The parent was created; the field is a one-to-many relation to schema `items`.
            #expect(try await client.get("/list/l1").object?["items"] == .array(succeeded.map(JSONValue.string)))
            let single = try await client.post("/list/l1/items", ["items_id": "i3", "name": "jam"])
            #expect(single.object?["succeeded"] == ["i3"])
            // A duplicate id fails alone (D4).
            let duplicate = try await client.post("/list/l1/items", [["items_id": "i1"], ["items_id": "i4"]])
            #expect(duplicate.object?["succeeded"] == ["i4"])
            #expect(duplicate.object?["failed"] == ["i1"])
            let expanded = try #require(try await client.get("/list/l1?_expand=1").object?["items"]?.arrayValue)
            #expect(expanded.compactMap { $0.objectValue?["name"]?.stringValue } == ["milk", "eggs", "jam"])
            #expect(expanded.count == 4)
            // A field that is not a one-to-many relation refuses related objects.
            _ = try await client.create("list", ["list_id": "l2", "title": "x"])
            #expect(try await client.post("/list/l2/title", [["a": 1]]).status == .badRequest)
        }
    }

    @Test("PUT /<schema>/<id>/<field> appends: arrays keep duplicates, relations dedupe; answers the parent")
    func appendExisting() async throws {
        try await TestServer.run { client in
            _ = try await client.create("list", ["list_id": "l1", "tags": ["a"], "scores": [1]])
            let tags = try await client.put("/list/l1/tags", ["a", "b", "a"])
            #expect(tags.status == .ok)
            #expect(tags.object?["tags"] == ["a", "a", "b", "a"])
            #expect(tags.object?["list_id"] == "l1")
            #expect(try await client.put("/list/l1/scores", ["x"]).status == .badRequest)
            #expect(try await client.put("/list/l1/scores", [2, 1]).object?["scores"] == [1, 2, 1])
            _ = try await client.post("/list/l1/items", [["items_id": "i1"]])
            let items = try await client.put("/list/l1/items", ["i2", "i1", "i2"])
            #expect(items.object?["items"] == ["i1", "i2"])
            #expect(try await client.put("/list/nope/tags", ["a"]).status == .notFound)
            #expect(try await client.put("/list/l1/list_id", ["a"]).status == .badRequest)
        }
    }

    @Test("DELETE /<schema>/<id>/<field>/<values> removes all occurrences; X-StackMob-CascadeDelete deletes the objects")
    func removeValues() async throws {
        try await TestServer.run { client in
            _ = try await client.create("list", ["list_id": "l1", "tags": ["a", "b", "a", "c"]])
            #expect(try await client.delete("/list/l1/tags/a,c").text == "{}")
            #expect(try await client.get("/list/l1").object?["tags"] == ["b"])
            _ = try await client.post("/list/l1/items", [["items_id": "i1"], ["items_id": "i2"], ["items_id": "i3"], ["items_id": "i4"]])
            // Without cascade the related object stays.
            #expect(try await client.delete("/list/l1/items/i1").status == .ok)
            #expect(try await client.get("/items/i1").status == .ok)
            // The Java SDK encodes the commas (%2C); the header value decides the cascade.
            #expect(try await client.delete("/list/l1/items/i2%2Ci3", headers: ["X-StackMob-CascadeDelete": "true"]).status == .ok)
            #expect(try await client.get("/items/i2").status == .notFound)
            #expect(try await client.get("/items/i3").status == .notFound)
            #expect(try await client.get("/list/l1").object?["items"] == ["i4"])
            #expect(try await client.delete("/list/l1/items/i4", headers: ["X-StackMob-CascadeDelete": "FALSE"]).status == .ok)
            #expect(try await client.get("/list/l1").object?["items"] == [])
            #expect(try await client.get("/items/i4").status == .ok)
            #expect(try await client.delete("/list/nope/items/i1").status == .notFound)
        }
    }

    @Test("field[inc] in PUT and POST: negative allowed, a missing field counts as 0")
    func counters() async throws {
        try await TestServer.run { client in
            let created = try await client.post("/photo", ["photo_id": "p", "likes[inc]": 0, "views[inc]": 2])
            #expect(created.status == .created)
            #expect(created.object?["likes"] == 0)
            #expect(created.object?["views"] == 2)
            #expect(try await client.put("/photo/p", ["likes[inc]": 5]).object?["likes"] == 5)
            #expect(try await client.put("/photo/p", ["likes[inc]": -2, "title": "x"]).object?["likes"] == 3)
            #expect(try await client.put("/photo/p", ["shares[inc]": 1]).object?["shares"] == 1)
            // An upsert counts from the stored value.
            let upsert = try await client.post("/photo", ["photo_id": "p", "likes[inc]": 10], headers: ["X-StackMob-Relations": ""])
            #expect(upsert.status == .ok)
            #expect(upsert.object?["likes"] == 13)
            // forceTo: an absolute value next to increments of other fields.
            #expect(try await client.put("/photo/p", ["likes": 100, "views[inc]": 1]).object?["views"] == 3)
            #expect(try await client.put("/photo/p", ["likes[inc]": 1.5]).status == .badRequest)
            #expect(try await client.put("/photo/p", ["title[inc]": 1]).status == .badRequest)
            #expect(try await client.get("/photo/p").object?["likes"] == 100)
        }
    }

    @Test("20 parallel upserts of one new id with hits[inc] end at exactly 20 with one 201, fifty times in a row")
    func concurrentUpsertsOfANewID() async throws {
        try await TestServer.run { client in
            _ = try await client.create("page", ["page_id": "seed", "hits": 0])
            let port = client.port
            for round in 0..<50 {
                let id = "p\(round)"
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<20 {
                        group.addTask {
                            try await TestClient.withClient(host: "127.0.0.1", port: port) { connection in
                                let client = StackMobClient(connection: connection, port: port, publicKey: TestServer.developmentPublicKey)
                                let upsert = try await client.post("/page", ["page_id": .string(id), "hits[inc]": 1], headers: ["X-StackMob-Relations": ""])
                                return Int(upsert.status.code)
                            }
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(statuses.sorted() == Array(repeating: 200, count: 19) + [201], "round \(round): \(statuses.sorted())")
                let hits = try await client.get("/page/\(id)").object?["hits"]
                #expect(hits == 20, "round \(round)")
                if hits != 20 { break }
            }
        }
    }

    @Test("100 parallel likes[inc] end at exactly 100; 100 parallel appends (PUT and POST) leave exactly those values")
    func concurrentCountersAndAppends() async throws {
        try await TestServer.run { client in
            _ = try await client.create("photo", ["photo_id": "p", "likes": 0, "tags": []])
            let port = client.port
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<100 {
                    group.addTask {
                        try await TestClient.withClient(host: "127.0.0.1", port: port) { connection in
                            let client = StackMobClient(connection: connection, port: port, publicKey: TestServer.developmentPublicKey)
                            let inc = try await client.put("/photo/p", ["likes[inc]": 1])
                            let append = try await client.put("/photo/p/tags", [.string("v\(index)")])
                            let related = try await client.post("/photo/p/comments", [["comments_id": .string("c\(index)")]])
                            guard related.object?["succeeded"] == [.string("c\(index)")] else { return -1 }
                            return Int(inc.status.code) * 1000 + Int(append.status.code)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.count == 100)
            #expect(statuses.allSatisfy { $0 == 200_200 })
            let photo = try #require(try await client.get("/photo/p").object)
            #expect(photo["likes"] == 100)
            let tagValues = try #require(photo["tags"]?.arrayValue)
            let tags = tagValues.compactMap(\.stringValue)
            #expect(tags.count == 100)
            #expect(Set(tags) == Set((0..<100).map { "v\($0)" }))
            let comments = try #require(photo["comments"]?.arrayValue)
            #expect(Set(comments.compactMap(\.stringValue)) == Set((0..<100).map { "c\($0)" }))
            #expect(comments.count == 100)
        }
    }
}
