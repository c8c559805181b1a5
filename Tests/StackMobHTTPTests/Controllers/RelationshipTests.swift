import Foundation
import HummingbirdTesting
import StackMobCore
import StackMobTestSupport
import Testing

/// Relationships over HTTP (PROTOCOL §5.4, §5.5, §6): nested upsert, expansion, select paths,
/// the related-object endpoints and counters.
@Suite("Relationships: nested upsert, expand, select paths, related-object endpoints, counters")
struct RelationshipTests {
    static let relations = ["X-StackMob-Relations": "author=user&author.friends=user&category=category"]

    /// A post by ann (friend bob) in category c1.
    static func seedGraph(_ client: StackMobClient) async throws {
        let body: JSONValue = [
            "post_id": "p1", "title": "hello",
            "author": ["username": "ann", "age": 30, "friends": [["username": "bob", "age": 31], "ghost"]],
            "category": ["category_id": "c1", "name": "news"],
        ]
        let response = try await client.post("/post", body, headers: relations)
        guard response.status == .created else { throw TestFailure("seed answered \(response.status.code): \(response.text)") }
    }

    @Test("nested upsert stores every object and answers ids only (D3), 201 then 200 (D2, D21)")
    func nestedUpsert() async throws {
        try await TestServer.run { client in
            let body: JSONValue = [
                "post_id": "p1", "title": "hello",
                "author": ["username": "ann", "password": "secret", "friends": [["username": "bob"]]],
                "category": ["name": "news"],
            ]
            let created = try await client.post("/post", body, headers: Self.relations)
            #expect(created.status == .created)
            let object = try #require(created.object)
            #expect(object["author"] == "ann")
            let categoryID = try #require(object["category"]?.stringValue)
            #expect(categoryID.count == 32)
            #expect(try await client.get("/user/ann").object?["friends"] == ["bob"])
            #expect(try await client.get("/user/ann").object?["password"] == nil)
            #expect(try await client.get("/category/\(categoryID)").object?["name"] == "news")
            // The same graph again updates instead of 409, nested objects included.
            let again = try await client.post(
                "/post", ["post_id": "p1", "title": "edited", "author": ["username": "ann", "age": 5]], headers: Self.relations)
            #expect(again.status == .ok)
            #expect(again.object?["title"] == "edited")
            #expect(again.object?["category"] == .string(categoryID))
            #expect(try await client.get("/user/ann").object?["age"] == 5)
            // Without the header a duplicate is still 409; with an empty one it is an upsert.
            #expect(try await client.post("/post", ["post_id": "p1"]).status == .conflict)
            #expect(try await client.post("/post", ["post_id": "p1", "title": "x"], headers: ["X-StackMob-Relations": ""]).status == .ok)
        }
    }

    @Test("ids, id arrays and primary-key-only objects with a header entry become relationships")
    func idsWithHeader() async throws {
        try await TestServer.run { client in
            _ = try await client.create("tag", ["tag_id": "t1", "label": "one"])
            let response = try await client.post(
                "/note", ["note_id": "n1", "tags": ["t1", "t2"], "main": ["tag_id": "t1"]], headers: ["X-StackMob-Relations": "tags=tag&main=tag"])
            #expect(response.status == .created)
            #expect(response.object?["main"] == "t1")
            // A primary-key-only object is a reference: the tag is not changed.
            #expect(try await client.get("/tag/t1").object?["label"] == "one")
            let expanded = try await client.get("/note/n1", headers: ["X-StackMob-Expand": "1"]).object
            #expect(expanded?["main"]?.objectValue?["label"] == "one")
            // t2 does not exist: dropped (D27).
            #expect(expanded?["tags"]?.arrayValue?.count == 1)
            // Relation fields are queried by id; one-to-many like an array.
            #expect(try await client.get("/note?tags=t2").array?.count == 1)
            #expect(try await client.get("/note?tags[in]=x,t1").array?.count == 1)
            #expect(try await client.get("/note?main=t1").array?.count == 1)
        }
    }

    @Test("a nested upsert with one invalid child leaves the database unchanged")
    func allOrNothing() async throws {
        try await TestServer.run { client in
            _ = try await client.create("user", ["username": "bob", "age": 31])
            let body: JSONValue = [
                "post_id": "p1", "title": "hello",
                "author": ["username": "ann", "friends": [["username": "carl"], ["username": "bob", "age": "not a number"]]],
                "category": ["category_id": "c1"],
            ]
            let response = try await client.post("/post", body, headers: Self.relations)
            #expect(response.status == .badRequest)
            #expect(response.error?.contains("has invalid type, please check your schema") == true)
            // Neither the objects nor the schemas the graph would have created exist (§10.4: 404).
            #expect(try await client.get("/post").status == .notFound)
            #expect(try await client.get("/user/ann").status == .notFound)
            #expect(try await client.get("/user/carl").status == .notFound)
            #expect(try await client.get("/user/bob").object?["age"] == 31)
            #expect(try await client.get("/category").status == .notFound)
        }
    }

    @Test("relation paths deeper than 3, malformed headers and bad expand depths are 400s")
    func limits() async throws {
        try await TestServer.run { client in
            let deep = try await client.post("/a", ["a_id": "x"], headers: ["X-StackMob-Relations": "b=b&b.c=c&b.c.d=d&b.c.d.e=e"])
            #expect(deep.status == .badRequest)
            #expect(deep.error?.contains("more than 3 levels") == true)
            #expect(try await client.post("/a", ["a_id": "x"], headers: ["X-StackMob-Relations": "b.c=c"]).status == .badRequest)
            #expect(try await client.post("/a", ["a_id": "x"], headers: ["X-StackMob-Relations": "b"]).status == .badRequest)
            let three = try await client.post(
                "/a", ["a_id": "x", "b": ["c": ["d": ["name": "deep"]]]], headers: ["X-StackMob-Relations": "b=b&b.c=c&b.c.d=d"])
            #expect(three.status == .created)
            _ = try await client.create("z", ["z_id": "1"])
            for bad in ["4", "-1", "two"] {
                #expect(try await client.get("/z/1", headers: ["X-StackMob-Expand": bad]).status == .badRequest)
                #expect(try await client.get("/z?_expand=\(bad)").status == .badRequest)
            }
            // Expansion stops at 3 levels: the d object is reached from a with depth 3.
            let expanded = try await client.get("/a/x", headers: ["X-StackMob-Expand": "3"]).object
            #expect(expanded?["b"]?.objectValue?["c"]?.objectValue?["d"]?.objectValue?["name"] == "deep")
            let two = try await client.get("/a/x", headers: ["X-StackMob-Expand": "2"]).object
            #expect(two?["b"]?.objectValue?["c"]?.objectValue?["d"]?.stringValue != nil)
        }
    }

    @Test("expansion by header and by _expand, on reads, queries and write responses; dangling ids dropped")
    func expansion() async throws {
        try await TestServer.run { client in
            try await Self.seedGraph(client)
            let plain = try #require(try await client.get("/post/p1").object)
            #expect(plain["author"] == "ann")
            let one = try #require(try await client.get("/post/p1?_expand=1").object)
            let author = try #require(one["author"]?.objectValue)
            #expect(author["age"] == 30)
            #expect(author["friends"] == ["bob", "ghost"])
            #expect(author["password"] == nil)
            let two = try #require(try await client.get("/post/p1", headers: ["X-StackMob-Expand": "2"]).object)
            let friends = try #require(two["author"]?.objectValue?["friends"]?.arrayValue)
            #expect(friends.count == 1)
            #expect(friends.first?.objectValue?["username"] == "bob")
            let list = try #require(try await client.get("/post?_expand=1").array)
            #expect(list.first?.objectValue?["category"]?.objectValue?["name"] == "news")
            // Expand on PUT and POST responses (D36).
            let put = try await client.put("/post/p1", ["title": "t2"], headers: ["X-StackMob-Expand": "1"])
            #expect(put.object?["category"]?.objectValue?["name"] == "news")
            let post = try await client.post(
                "/post", ["post_id": "p2", "category": "c1"], headers: ["X-StackMob-Relations": "category=category", "X-StackMob-Expand": "1"])
            #expect(post.status == .created)
            #expect(post.object?["category"]?.objectValue?["name"] == "news")
            // A deleted related object disappears from expansions.
            #expect(try await client.delete("/category/c1").status == .ok)
            let after = try await client.get("/post/p1?_expand=1").object
            #expect(after?["category"] == nil)
            #expect(after?["author"]?.objectValue != nil)
            #expect(try await client.get("/post/p1").object?["category"] == "c1")
        }
    }

    @Test("X-StackMob-Select with dotted paths and * into expanded objects; into non-expanded relations is 400")
    func selectPaths() async throws {
        try await TestServer.run { client in
            try await Self.seedGraph(client)
            let selected = try #require(
                try await client.get("/post/p1", headers: ["X-StackMob-Expand": "2", "X-StackMob-Select": "title,author.age,author.friends.age,category.*"])
                    .object)
            #expect(selected["post_id"] == "p1")
            #expect(selected["title"] == "hello")
            #expect(selected["createddate"] == nil)
            let author = try #require(selected["author"]?.objectValue)
            #expect(author == ["username": "ann", "age": 30, "friends": [["username": "bob", "age": 31]]])
            #expect(selected["category"]?.objectValue?["name"] == "news")
            #expect(selected["category"]?.objectValue?["createddate"] != nil)
            let list = try await client.get("/post?_expand=1", headers: ["X-StackMob-Select": "author.age"]).array
            #expect(list?.first == ["post_id": "p1", "author": ["username": "ann", "age": 30]])
            let notExpanded = try await client.get("/post/p1", headers: ["X-StackMob-Select": "author.age"])
            #expect(notExpanded.status == .badRequest)
            #expect(notExpanded.error?.contains("not expanded") == true)
            #expect(try await client.get("/post?_expand=1", headers: ["X-StackMob-Select": "author.friends.age"]).status == .badRequest)
            #expect(try await client.get("/post/p1?_expand=1", headers: ["X-StackMob-Select": "title.x"]).status == .badRequest)
            #expect(try await client.get("/post/p1?_expand=1", headers: ["X-StackMob-Select": "author.nope"]).status == .badRequest)
        }
    }

    @Test("relationships declared in configuration exist from start-up, also in production, and need no header")
    func declared() async throws {
        try await TestServer.run(configure: { configuration in
            let declared: [String: [String: FieldType]] = [
                "todo": ["category": .relation(target: "category", toMany: false), "tags": .relation(target: "tag", toMany: true)],
                "tag": [:],
            ]
            configuration.development.relationships = declared
            configuration.production.relationships = declared
        }) { client in
            _ = try await client.create("category", ["category_id": "c1"])
            let todo = try await client.post("/todo", ["todo_id": "t1", "category": "c1", "tags": ["x", "x"]])
            #expect(todo.status == .created)
            #expect(todo.object?["tags"] == ["x"])
            #expect(try await client.get("/todo/t1?_expand=1").object?["category"]?.objectValue?["category_id"] == "c1")
            // A header naming another schema does not redirect a declared relationship.
            let nested = try await client.post(
                "/todo", ["todo_id": "t2", "category": ["category_id": "c2", "name": "two"]], headers: ["X-StackMob-Relations": "category=other"])
            #expect(nested.status == .created)
            #expect(try await client.get("/category/c2").object?["name"] == "two")
            // `other` was never written: it does not exist (§10.4).
            #expect(try await client.get("/other").status == .notFound)
            // Production infers nothing, yet the declared fields and schemas exist.
            let production = client.production()
            let created = try await production.post("/todo", ["todo_id": "p1", "tags": ["a"]])
            #expect(created.status == .created)
            #expect(try await production.post("/todo/p1/tags", [["tag_id": "a"]]).object?["succeeded"] == ["a"])
            let expanded = try await production.get("/todo/p1?_expand=1").object?["tags"]?.arrayValue
            #expect(expanded?.first?.objectValue?["tag_id"] == "a")
        }
    }

    @Test("a bulk POST with X-StackMob-Relations upserts each element's graph on its own; a failing one leaves nothing")
    func bulkWithRelations() async throws {
        try await TestServer.run { client in
            let body: JSONValue = [
                ["post_id": "p1", "category": ["category_id": "c1", "name": "one"]],
                ["post_id": "p2", "category": ["category_id": "c2", "name": "two"], "title": 5],
                ["post_id": "p3", "category": ["category_id": "c3", "name": 3]],
                "not an object",
            ]
            let response = try await client.post("/post", body, headers: ["X-StackMob-Relations": "category=category"])
            #expect(response.status == .ok)
            #expect(response.object?["succeeded"] == ["p1", "p2"])
            let failed = try #require(response.object?["failed"]?.arrayValue)
            #expect(failed.count == 2)
            #expect(failed.first == "p3")
            #expect(try await client.get("/category/c3").status == .notFound)
            #expect(try await client.get("/post/p3").status == .notFound)
            #expect(try await client.get("/post/p1?_expand=1").object?["category"]?.objectValue?["name"] == "one")
        }
    }
}
