import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("GET, PUT, DELETE and HEAD on objects")
struct ObjectTests {
    @Test("GET of a missing object is a 404 with the exact text")
    func readMissing() async throws {
        try await TestServer.run { client in
            for path in ["/todo/nope", "/neverseen/nope"] {
                let response = try await client.get(path)
                #expect(response.status == .notFound)
                #expect(response.text == #"{"error":"object instance does not exist"}"#)
            }
        }
    }

    @Test("GET /<schema> lists every object, newest first, ties broken by primary key")
    func listOrder() async throws {
        let clock = ManualClock()
        try await TestServer.run(clock: clock) { client in
            // Not written yet: an unknown name (§10.4), not an empty list.
            #expect(try await client.get("/todo").status == .notFound)
            for id in ["b", "a", "c"] {
                _ = try await client.create("todo", ["todo_id": .string(id)])
            }
            clock.advance(by: 10)
            _ = try await client.create("todo", ["todo_id": "z"])
            let ids = try await client.get("/todo").array?.compactMap { $0.objectValue?["todo_id"]?.stringValue }
            #expect(ids == ["z", "a", "b", "c"])
        }
    }

    @Test("X-StackMob-OrderBy: ties run by primary key in the direction of the last key, and ranges over them meet")
    func sortedTies() async throws {
        try await TestServer.run { client in
            for (id, rank) in [("b", 1), ("d", 2), ("a", 1), ("c", 1)] {
                _ = try await client.create("todo", ["todo_id": .string(id), "rank": .integer(Int64(rank))])
            }
            for (order, expected) in [("rank:asc", ["a", "b", "c", "d"]), ("rank:desc", ["d", "c", "b", "a"])] {
                var ids: [String] = []
                for range in ["objects=0-1", "objects=2-3"] {
                    let page = try await client.get("/todo", headers: ["X-StackMob-OrderBy": order, "Range": range])
                    ids += page.array?.compactMap { $0.objectValue?["todo_id"]?.stringValue } ?? []
                }
                #expect(ids == expected, "\(order)")
            }
        }
    }

    @Test("PUT merges into the stored object and returns all of it; null clears a field")
    func updateMerges() async throws {
        let clock = ManualClock()
        try await TestServer.run(clock: clock) { client in
            let created = try await client.create("todo", ["todo_id": "t", "title": "old", "size": 3, "tags": ["a"]])
            clock.advance(by: 50)
            let response = try await client.put("/todo/t", ["title": "new", "tags": nil, "todo_id": "t"])
            #expect(response.status == .ok)
            let object = try #require(response.object)
            #expect(object["title"] == "new")
            #expect(object["size"] == 3)
            #expect(object["tags"] == nil)
            #expect(object["createddate"] == created["createddate"])
            #expect(object["lastmoddate"] == .integer(clock.nowMilliseconds()))
            #expect(try await client.get("/todo/t").object == object)
            // The string "NULL" is an ordinary string (D16).
            #expect(try await client.put("/todo/t", ["title": "NULL"]).object?["title"] == "NULL")
        }
    }

    @Test("lastmoddate strictly increases, even for writes within one millisecond")
    func lastModifiedIncreases() async throws {
        let clock = ManualClock(5_000)
        try await TestServer.run(clock: clock) { client in
            _ = try await client.create("todo", ["todo_id": "t"])
            let first = try await client.put("/todo/t", ["n": 1]).object?["lastmoddate"]
            let second = try await client.put("/todo/t", ["n": 2]).object?["lastmoddate"]
            #expect(first == 5_001)
            #expect(second == 5_002)
            // A read never changes it.
            #expect(try await client.get("/todo/t").object?["lastmoddate"] == 5_002)
        }
    }

    @Test("PUT that changes the primary key is a 400, checked before existence")
    func primaryKeyChange() async throws {
        try await TestServer.run { client in
            _ = try await client.create("todo", ["todo_id": "t"])
            for path in ["/todo/t", "/todo/missing"] {
                let response = try await client.put(path, ["todo_id": "other"])
                #expect(response.status == .badRequest)
                #expect(response.error == "unable to update primary key")
            }
            #expect(try await client.put("/todo/t", ["todo_id": 5]).error == "unable to update primary key")
        }
    }

    @Test("PUT of a missing object is a 404 and never creates it")
    func updateMissing() async throws {
        try await TestServer.run { client in
            let response = try await client.put("/todo/ghost", ["title": "x"])
            #expect(response.status == .notFound)
            #expect(response.error == "object instance does not exist")
            #expect(try await client.get("/todo/ghost").status == .notFound)
        }
    }

    @Test("DELETE answers {} and removes the object; a missing one is a 404 with its own text")
    func deleteObject() async throws {
        try await TestServer.run { client in
            _ = try await client.create("todo", ["todo_id": "t"])
            let response = try await client.delete("/todo/t")
            #expect(response.status == .ok)
            #expect(response.text == "{}")
            #expect(response.header("Content-Type") == "application/json; charset=utf-8")
            #expect(try await client.get("/todo/t").status == .notFound)
            let again = try await client.delete("/todo/t")
            #expect(again.status == .notFound)
            #expect(again.text == #"{"error":"This object does not exist"}"#)
        }
    }

    @Test("DELETE answers the Java-family SDKs with their legacy text", arguments: [
        "StackMob (Java Client; 1.3.8)", "StackMob (Android; 1.3.8)",
    ])
    func deleteJava(userAgent: String) async throws {
        try await TestServer.run { client in
            _ = try await client.create("todo", ["todo_id": "t"])
            let response = try await client.delete("/todo/t", headers: ["User-Agent": userAgent])
            #expect(response.status == .ok)
            #expect(response.text == "Successfully deleted document")
            #expect(response.header("Content-Type") == "text/plain")
        }
    }

    @Test("HEAD on an object or a schema answers the status a GET would, without a body")
    func head() async throws {
        try await TestServer.run { client in
            _ = try await client.create("todo", ["todo_id": "t"])
            let found = try await client.head("/todo/t")
            #expect(found.status == .ok)
            #expect(found.body.isEmpty)
            let missing = try await client.head("/todo/missing")
            #expect(missing.status == .notFound)
            #expect(missing.body.isEmpty)
            #expect(try await client.head("/todo").status == .ok)
        }
    }

    @Test("ids in the path are percent-decoded; a literal + is a space", arguments: [
        ("jane+x@example.com", "jane%2Bx%40example%2Ecom"),
        ("two words", "two+words"),
        ("two words", "two%20words"),
        ("a,b", "a%2Cb"),
        ("Ünïcode", "%C3%9Cn%C3%AFcode"),
    ])
    func pathDecoding(id: String, encoded: String) async throws {
        try await TestServer.run { client in
            _ = try await client.create("todo", ["todo_id": .string(id), "n": 1])
            let response = try await client.get("/todo/\(encoded)")
            #expect(response.status == .ok)
            #expect(response.object?["todo_id"] == .string(id))
            #expect(try await client.put("/todo/\(encoded)", ["n": 2]).status == .ok)
            #expect(try await client.delete("/todo/\(encoded)").status == .ok)
        }
    }

    @Test("a malformed percent escape in the path is a 400")
    func badPercent() async throws {
        try await TestServer.run { client in
            let response = try await client.get("/todo/%zz")
            #expect(response.status == .badRequest)
            #expect(response.error == "Invalid percent-encoding in '%zz'")
        }
    }

    @Test("X-HTTP-Method-Override: GET may become DELETE or HEAD, POST may become PUT, nothing else")
    func methodOverride() async throws {
        try await TestServer.run { client in
            _ = try await client.create("todo", ["todo_id": "t", "n": 1])
            let put = try await client.request(.post, "/todo/t", json: ["n": 2], headers: ["X-HTTP-Method-Override": "PUT"])
            #expect(put.status == .ok)
            #expect(put.object?["n"] == 2)
            let head = try await client.request(.get, "/todo/t", headers: ["X-HTTP-Method-Override": "HEAD"])
            #expect(head.status == .ok)
            #expect(head.body.isEmpty)
            let refused = try await client.request(.get, "/todo/t", headers: ["X-HTTP-Method-Override": "PUT"])
            #expect(refused.status == .badRequest)
            #expect(refused.error == "X-HTTP-Method-Override cannot turn GET into PUT: only GET into DELETE or HEAD, and POST into PUT")
            let delete = try await client.request(.get, "/todo/t", headers: ["X-HTTP-Method-Override": "delete"])
            #expect(delete.status == .ok)
            #expect(try await client.get("/todo/t").status == .notFound)
        }
    }
}
