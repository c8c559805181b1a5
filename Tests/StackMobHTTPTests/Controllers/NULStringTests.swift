import StackMobCore
import StackMobTestSupport
import Testing

/// A string holding U+0000 cannot be stored whole (PostgreSQL's `text` refuses it, SQLite's text
/// binding ends at it), so every write refuses it with a 400 naming the field, on both engines;
/// every other control character is stored and read back as sent.
@Suite("Strings holding U+0000")
struct NULStringTests {
    static func refusal(_ field: String) -> String {
        #"{"error":"field \"\#(field)\" contains U+0000, which cannot be stored"}"#
    }

    @Test("POST with U+0000 in a string field is a 400 naming the field, and stores nothing")
    func createRefused() async throws {
        try await TestServer.run { client in
            for (id, value) in [("t1", #""a\u0000b""#), ("t2", #""\u0000""#), ("t3", #""ab\u0000""#)] {
                let response = try await client.request(.post, "/todo", rawBody: #"{"todo_id":"\#(id)","name":\#(value)}"#)
                #expect(response.status == .badRequest)
                #expect(response.text == Self.refusal("name"))
            }
            _ = try await client.create("todo", ["todo_id": "kept", "name": "a"])
            let response = try await client.request(.post, "/todo", rawBody: #"{"todo_id":"t4","name":"a\u0000b"}"#)
            #expect(response.text == Self.refusal("name"))
            let ids = try await client.get("/todo").array?.compactMap { $0.objectValue?["todo_id"]?.stringValue }
            #expect(ids == ["kept"])
        }
    }

    @Test("POST with U+0000 in an array element is a 400 naming the field")
    func arrayRefused() async throws {
        try await TestServer.run { client in
            let response = try await client.request(.post, "/todo", rawBody: #"{"todo_id":"t1","tags":["ok","x\u0000y"]}"#)
            #expect(response.status == .badRequest)
            #expect(response.text == Self.refusal("tags"))
            // An existing array field too, and in a bulk create the element fails alone (D4).
            _ = try await client.create("todo", ["todo_id": "t2", "tags": ["a"]])
            let bulk = try await client.post("/todo", [["todo_id": "t3", "tags": ["\u{0}"]], ["todo_id": "t4", "tags": ["b"]]])
            #expect(bulk.status == .ok)
            #expect(bulk.text == #"{"failed":["t3"],"succeeded":["t4"]}"#)
        }
    }

    @Test("PUT with U+0000 is a 400 naming the field, and the stored object is unchanged")
    func updateRefused() async throws {
        try await TestServer.run(clock: ManualClock(1_000)) { client in
            let created = try await client.create("todo", ["todo_id": "t", "title": "old", "tags": ["a"]])
            for (field, value) in [("title", #""new\u0000""#), ("tags", #"["b","\u0000"]"#), ("note", #""\u0000""#)] {
                let response = try await client.request(.put, "/todo/t", rawBody: #"{"\#(field)":\#(value),"size":2}"#)
                #expect(response.status == .badRequest)
                #expect(response.text == Self.refusal(field))
            }
            // Appending to an array goes through the same check.
            let appended = try await client.put("/todo/t/tags", ["c", "\u{0}"])
            #expect(appended.status == .badRequest)
            #expect(appended.text == Self.refusal("tags"))
            #expect(try await client.get("/todo/t").object == created)
        }
    }

    @Test("other control characters are stored and read back byte for byte")
    func controlCharacters() async throws {
        try await TestServer.run { client in
            let text = "\u{1}a\nb\r\t\u{1F}\u{7F}\"\\é😀"
            // As JSONWriter sends it: the control characters escaped, DEL and the rest as UTF-8.
            let wire = #""\u0001a\nb\r\t\u001f\#u{7F}\"\\é😀""#
            let response = try await client.request(.post, "/todo", rawBody: #"{"todo_id":"t","title":\#(wire),"tags":[\#(wire)]}"#)
            #expect(response.status == .created)
            for body in [response, try await client.get("/todo/t"), try await client.put("/todo/t", ["note": .string(text)])] {
                let object = try #require(body.object)
                #expect(object["title"]?.stringValue?.utf8.elementsEqual(text.utf8) == true)
                #expect(object["tags"] == [.string(text)])
                #expect(body.text.contains(#""title":\#(wire)"#))
            }
            #expect(try await client.get("/todo/t").object?["note"]?.stringValue?.utf8.elementsEqual(text.utf8) == true)
        }
    }

    @Test("ids, user fields and related objects holding U+0000 are refused the same way")
    func idsAndUsers() async throws {
        try await TestServer.run { client in
            let id = try await client.request(.post, "/todo", rawBody: #"{"todo_id":"a\u0000b"}"#)
            #expect(id.status == .badRequest)
            #expect(id.text == Self.refusal("todo_id"))
            for (field, body) in [
                ("username", #"{"username":"ann\u0000","password":"p"}"#), ("password", #"{"username":"ann","password":"p\u0000q"}"#),
                ("email", #"{"username":"ann","password":"p","email":"ann@example.com\u0000"}"#),
            ] {
                let response = try await client.request(.post, "/user", rawBody: body)
                #expect(response.status == .badRequest)
                #expect(response.text == Self.refusal(field))
            }
            _ = try await client.create("user", ["username": "bob", "password": "p"])
            #expect(try await client.get("/user").array?.compactMap { $0.objectValue?["username"] } == ["bob"])

            let relations = ["X-StackMob-Relations": "tags=tag&main=tag"]
            let cases: [(JSONObject, String)] = [
                (["todo_id": "r1", "tags": ["g1", "g\u{0}"]], "tags"),
                (["todo_id": "r2", "main": ["tag_id": "g\u{0}", "label": "x"]], "main.tag_id"),
                (["todo_id": "r3", "main": ["tag_id": "g", "label": "x\u{0}"]], "label"),
            ]
            for (body, field) in cases {
                let response = try await client.post("/todo", .object(body), headers: relations)
                #expect(response.status == .badRequest)
                #expect(response.text == Self.refusal(field))
            }
            // A new related object through its parent: the element fails alone (D4).
            let related = try await client.post("/todo/r4/items", [["items_id": "i\u{0}"], ["items_id": "i1", "label": "\u{0}"], ["items_id": "i2"]])
            #expect(related.status == .ok)
            #expect(related.object == ["failed": ["i\u{0}", "i1"], "succeeded": ["i2"]])
            #expect(try await client.get("/todo/r4").object?["items"] == ["i2"])
        }
    }

    @Test("a field name holding U+0000 is an invalid field name")
    func fieldName() async throws {
        try await TestServer.run { client in
            let response = try await client.request(.post, "/todo", rawBody: #"{"a\u0000b":"x"}"#)
            #expect(response.status == .badRequest)
            #expect(response.error == DatastoreError.invalidFieldName("a\u{0}b").message)
        }
    }
}
