import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("POST /<schema>: create, bulk create, upsert")
struct CreateTests {
    @Test("a create answers 201 with the whole stored object, a generated id and timestamps")
    func createOne() async throws {
        let clock = ManualClock(1_700_000_000_123)
        try await TestServer.run(clock: clock) { client in
            let response = try await client.post("/todo", ["title": "Buy milk", "done": false, "priority": 2, "note": nil])
            #expect(response.status == .created)
            let object = try #require(response.object)
            let id = try #require(object["todo_id"]?.stringValue)
            #expect(id.count == 32 && id.allSatisfy { $0.isHexDigit && !$0.isUppercase })
            #expect(object["title"] == "Buy milk")
            #expect(object["done"] == false)
            #expect(object["priority"] == 2)
            #expect(object["createddate"] == .integer(1_700_000_000_123))
            #expect(object["lastmoddate"] == .integer(1_700_000_000_123))
            // Null fields are omitted, not sent as null (D16).
            #expect(object["note"] == nil)
            #expect(!response.text.contains("null"))
            #expect(object["sm_owner"] == nil)
        }
    }

    @Test("response keys are in lexicographic order")
    func sortedKeys() async throws {
        try await TestServer.run(clock: ManualClock(1_000)) { client in
            let response = try await client.post("/item", ["zeta": 1, "alpha": "a", "item_id": "x1", "mid": true])
            #expect(response.text == #"{"alpha":"a","createddate":1000,"item_id":"x1","lastmoddate":1000,"mid":true,"zeta":1}"#)
        }
    }

    @Test("a client-supplied id is kept; sending it again is a 409 with StackMob's text")
    func duplicateKey() async throws {
        try await TestServer.run { client in
            let first = try await client.post("/todo", ["todo_id": "ABC-123", "title": "one"])
            #expect(first.status == .created)
            #expect(first.object?["todo_id"] == "ABC-123")
            let second = try await client.post("/todo", ["todo_id": "ABC-123", "title": "two"])
            #expect(second.status == .conflict)
            #expect(second.error == #"Duplicate key for schema todo: "ABC-123""#)
            let stored = try await client.get("/todo/ABC-123")
            #expect(stored.object?["title"] == "one")
        }
    }

    @Test("with X-StackMob-Relations, even empty, a POST with an existing id updates it (200)")
    func upsert() async throws {
        try await TestServer.run { client in
            _ = try await client.create("todo", ["todo_id": "t1", "title": "one", "size": 1])
            let response = try await client.post("/todo", ["todo_id": "t1", "title": "two"], headers: ["X-StackMob-Relations": ""])
            #expect(response.status == .ok)
            #expect(response.object?["title"] == "two")
            #expect(response.object?["size"] == 1)
            let created = try await client.post("/todo", ["todo_id": "t2", "title": "new"], headers: ["X-StackMob-Relations": ""])
            #expect(created.status == .created)
        }
    }

    @Test("an array body is a bulk create: 200 with succeeded and failed ids in request order")
    func bulk() async throws {
        try await TestServer.run { client in
            _ = try await client.create("todo", ["todo_id": "taken"])
            let response = try await client.post(
                "/todo",
                [["todo_id": "a", "n": 1], ["n": 2], ["todo_id": "taken"], ["todo_id": "b", "n": "not a number"], "not an object", ["todo_id": "c"]])
            #expect(response.status == .ok)
            let body = try #require(response.object)
            let succeeded = try #require(body["succeeded"]?.arrayValue).compactMap(\.stringValue)
            let failed = try #require(body["failed"]?.arrayValue).compactMap(\.stringValue)
            #expect(succeeded.count == 3)
            #expect(succeeded.first == "a" && succeeded.last == "c")
            #expect(succeeded[1].count == 32)
            #expect(failed.count == 3)
            #expect(failed[0] == "taken" && failed[1] == "b")
            #expect(failed[2].count == 32)
            #expect(try await client.get("/todo").array?.count == 4)
            #expect(try await client.get("/todo/b").status == .notFound)
        }
    }

    @Test("schema names are case-insensitive and stored lower-case")
    func schemaCase() async throws {
        try await TestServer.run { client in
            let created = try await client.post("/ToDo", ["todo_id": "x", "title": "t"])
            #expect(created.status == .created)
            #expect(try await client.get("/todo/x").status == .ok)
            #expect(try await client.get("/TODO/x").object?["title"] == "t")
        }
    }

    @Test("the body is parsed as JSON whatever the Content-Type says")
    func contentTypeIgnored() async throws {
        try await TestServer.run { client in
            for contentType in ["application/x-www-form-urlencoded", "text/plain", ""] {
                var headers = ["Content-Type": contentType]
                if contentType.isEmpty { headers = [:] }
                let response = try await client.request(.post, "/note", rawBody: #"{"text":"hi"}"#, headers: headers)
                #expect(response.status == .created, "Content-Type \(contentType)")
            }
        }
    }

    @Test("client-supplied createddate and lastmoddate are kept (offline sync)")
    func clientTimestamps() async throws {
        try await TestServer.run { client in
            let object = try await client.create("note", ["createddate": 5, "lastmoddate": 6])
            #expect(object["createddate"] == 5)
            #expect(object["lastmoddate"] == 6)
            let bad = try await client.post("/note", ["createddate": "yesterday"])
            #expect(bad.status == .badRequest)
            #expect(bad.error == "createddate must be an integer number of milliseconds since the epoch, from 0 to 253402300799999")
        }
    }

    @Test("sm_owner from an anonymous client is ignored")
    func ownerIgnored() async throws {
        try await TestServer.run { client in
            let object = try await client.create("note", ["sm_owner": "user/mallory", "text": "x"])
            #expect(object["sm_owner"] == nil)
        }
    }

    @Test(
        "bad requests are a 400 (or 413) with a clear error, never a 500",
        arguments: [
            ("/todo", #"{"title": "#, 400, "Malformed JSON in the request body: unexpected end of input at line 1, column 11"),
            ("/todo", "", 400, "The request body is empty: send a JSON object"),
            ("/todo", #""just a string""#, 400, "The request body must be a JSON object, or an array of JSON objects"),
            ("/todo", #"{"Title": "x"}"#, 400, "Invalid field name 'Title': use lower-case letters, digits and underscores, at most 64 characters"),
            ("/todo", #"{"a-b": 1}"#, 400, "Invalid field name 'a-b': use lower-case letters, digits and underscores, at most 64 characters"),
            ("/to-do", #"{"a": 1}"#, 400, "Invalid schema name 'to-do': use lower-case letters, digits and underscores, starting with a letter, at most 64 characters"),
            ("/_sm_schemas", #"{"a": 1}"#, 400, "Invalid schema name '_sm_schemas': use lower-case letters, digits and underscores, starting with a letter, at most 64 characters"),
            // POST /listapi is the listapi endpoint itself (D22), so no longer a reserved-name error.
            ("/todo", #"{"author": {"name": "x"}}"#, 400, #"author is an object: only geopoints ({"lat", "lon"}) may be sent inline; map related objects with X-StackMob-Relations"#),
            ("/todo", #"{"todo_id": 12}"#, 400, "todo_id must be a non-empty string"),
            ("/todo", #"{"todo_id": ""}"#, 400, "todo_id must be a non-empty string"),
            ("/todo", #"{"a": [[1]]}"#, 400, "a is an incompatible type, please check your schema"),
            ("/todo", String(repeating: "[", count: 100) + String(repeating: "]", count: 100), 400, "Malformed JSON in the request body: nesting deeper than 64 levels at line 1, column 65"),
        ])
    func badRequests(path: String, body: String, status: Int, message: String) async throws {
        try await TestServer.run { client in
            let response = try await client.request(.post, path, rawBody: body)
            #expect(response.status.code == status)
            #expect(response.error == message)
        }
    }

    @Test("a body over the configured limit is a 413 with a JSON error")
    func bodyLimit() async throws {
        try await TestServer.run(configure: { $0.maxBodyBytes = 1024 }) { client in
            let big = try await client.post("/note", ["text": .string(String(repeating: "x", count: 2000))])
            #expect(big.status == .contentTooLarge)
            #expect(big.error == "The request body is larger than the limit of 1024 bytes")
            let small = try await client.post("/note", ["text": .string(String(repeating: "x", count: 500))])
            #expect(small.status == .created)
        }
    }
}
