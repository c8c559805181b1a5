import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("listapi (PROTOCOL §13.2, D22)")
struct ListAPITests {
    @Test("GET and POST /listapi describe the environment's schemas and custom-code methods")
    func listsSchemasAndMethods() async throws {
        try await TestServer.run(configure: { configuration in
            configuration.development.customCode = [CustomCodeMethod(name: "sendMail", url: "http://127.0.0.1:9/hook")]
        }) { client in
            _ = try await client.create("todo", ["title": "a", "done": false, "count": 2])
            for response in [try await client.get("/listapi"), try await client.request(.post, "/listapi")] {
                #expect(response.status == .ok)
                let todo = try #require(response.object?["schemas"]?.objectValue?["todo"]?.objectValue)
                #expect(todo["title"] == .string("string"))
                #expect(todo["done"] == .string("boolean"))
                #expect(todo["count"] == .string("integer"))
                #expect(todo["todo_id"] == .string("string"))
                #expect(response.object?["schemas"]?.objectValue?["user"] != nil)
                #expect(response.object?["methods"] == .array([.string("sendMail")]))
                // No internal tables.
                #expect(response.object?["schemas"]?.objectValue?.keys.contains { $0.hasPrefix("_sm") } == false)
                // The hosted shape, as the stackmob-ruby gem's api_schema reads it (`has_key?("user")`).
                let hosted = try #require(response.object?["todo"]?.objectValue)
                #expect(hosted["id"] == "todo" && hosted["type"] == "object" && hosted["primary_key"] == "todo_id")
                let properties = try #require(hosted["properties"]?.objectValue)
                #expect(properties["title"] == ["type": "string"])
                #expect(properties["done"] == ["type": "boolean"])
                #expect(properties["todo_id"] == ["type": "string", "identity": true])
                #expect(response.object?["user"]?.objectValue?["properties"]?.objectValue?["username"] != nil)
                #expect(response.object?["user"]?.objectValue?["properties"]?.objectValue?["password"] == ["type": "string", "format": "password"])
            }
        }
    }

    @Test("the hosted shape describes relationships, arrays, geopoints and files; schemas and methods are no schema's names")
    func hostedShape() async throws {
        try await TestServer.run { client in
            #expect(try await client.post("/tag", ["tag_id": "t1"]).status == .created)
            let post = try await client.post(
                "/post", ["post_id": "p1", "tags": ["t1"], "scores": [1.5], "where": ["lat": 1, "lon": 2]],
                headers: ["X-StackMob-Relations": "tags=tag", "X-StackMob-FieldTypes": "where=geopoint"])
            #expect(post.status == .created, "\(post.text)")
            let properties = try #require(try await client.get("/listapi").object?["post"]?.objectValue?["properties"]?.objectValue)
            #expect(properties["tags"] == ["type": "array", "items": ["type": "string", "$ref": "tag"]])
            #expect(properties["scores"] == ["type": "array", "items": ["type": "number"]])
            for name in ["schemas", "methods"] {
                let refused = try await client.post("/\(name)", ["a": 1])
                #expect(refused.status == .badRequest, "\(name): \(refused.text)")
            }
        }
    }

    @Test("listapi needs the API key like any call, and describes only its own environment")
    func authenticated() async throws {
        try await TestServer.run { client in
            _ = try await client.create("todo", ["title": "a"])
            #expect(try await client.withoutKey.get("/listapi").status == .unauthorized)
            let production = try await client.production().get("/listapi")
            #expect(production.status == .ok)
            #expect(production.object?["methods"] == .array([]))
        }
    }
}
