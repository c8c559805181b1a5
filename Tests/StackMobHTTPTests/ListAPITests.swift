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
