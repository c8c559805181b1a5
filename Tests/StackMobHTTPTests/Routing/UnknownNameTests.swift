import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("Unknown names are 404 in every environment (§10.4); declared schemas exist before their first write")
struct UnknownNameTests {
    static let unknown = "No custom code method or schema named 'nonexistent'"

    /// Every request but a create, naming a schema that was never written nor declared.
    static func expectNotFound(_ client: StackMobClient) async throws {
        // The Java SDK's testNonexistentMethodShouldFail: a non-2xx JSON error.
        let get = try await client.get("/nonexistent")
        #expect(get.status == .notFound)
        #expect(get.object == ["error": .string(unknown)])
        #expect(try await client.get("/nonexistent?done=true").status == .notFound)
        #expect(try await client.head("/nonexistent").status == .notFound)
        #expect(try await client.delete("/nonexistent?done=true").error == unknown)
        // Object routes answer with the object texts the SDKs compare (§14).
        #expect(try await client.get("/nonexistent/a").object == ["error": "object instance does not exist"])
        #expect(try await client.head("/nonexistent/a").status == .notFound)
        #expect(try await client.put("/nonexistent/a", ["n": 1]).object == ["error": "object instance does not exist"])
        #expect(try await client.delete("/nonexistent/a").object == ["error": "This object does not exist"])
        #expect(try await client.put("/nonexistent/a/tags", ["x"]).status == .notFound)
        #expect(try await client.delete("/nonexistent/a/tags/x").status == .notFound)
        #expect(try await client.put("/nonexistent", ["n": 1]).status == .notFound)
    }

    @Test("development: everything but a create is 404, and reads create nothing; a create still infers the schema")
    func development() async throws {
        try await TestServer.run { client in
            try await Self.expectNotFound(client)
            // Mixed case as the JS SDK sends it: the same unknown name.
            #expect(try await client.get("/NonExistent").status == .notFound)
            #expect(try await client.get("/listapi").object?["schemas"]?.objectValue?["nonexistent"] == nil)
            #expect(try await client.post("/nonexistent", ["n": 1]).status == .created)
            let read = try await client.get("/nonexistent")
            #expect(read.status == .ok)
            #expect(read.array?.count == 1)
            // Once every object is gone the schema still exists: an empty list.
            #expect(try await client.delete("/nonexistent?n=1").status == .ok)
            #expect(try await client.get("/nonexistent").array == [])
            // Names the server knows keep answering: listapi, the user schema and its actions.
            #expect(try await client.get("/listapi").status == .ok)
            #expect(try await client.get("/user").array == [])
            #expect(try await client.get("/user/loggedInUser").status == .unauthorized)
        }
    }

    @Test("production: the same 404s; a create names the missing schema with 400")
    func production() async throws {
        try await TestServer.run { client in
            try await Self.expectNotFound(client.production())
            let create = try await client.production().post("/nonexistent", ["n": 1])
            #expect(create.status == .badRequest)
            #expect(create.error == "Schema 'nonexistent' does not exist")
        }
    }

    @Test("a schema's permission level answers before the 404 of a schema never written")
    func permissionFirst() async throws {
        try await TestServer.run(configure: {
            $0.development.access = AccessPolicy(schemas: ["secret": SchemaPermissions(all: .loggedIn)])
        }) { client async throws in
            #expect(try await client.get("/secret").status == .unauthorized)
            #expect(try await client.oauth1(.get, "/secret", shape: .java).status == .notFound)
        }
    }

    @Test("declared schemas (environments.<env>.schemas) read as empty lists before any write, in both environments, with their field types")
    func declared() async throws {
        try await TestServer.run(configure: { configuration in
            let schemas: [String: SchemaDeclaration] = [
                "todo": SchemaDeclaration(name: "todo"),
                "note": SchemaDeclaration(name: "note", fields: ["title": .string, "pic": .binary, "tags": .array(.string)]),
            ]
            configuration.development.schemas = schemas
            configuration.production.schemas = schemas
        }) { client in
            for environment in [client, client.production()] {
                let todos = try await environment.get("/todo")
                #expect(todos.status == .ok)
                #expect(todos.array == [])
                #expect(try await environment.get("/note?title=x").array == [])
                #expect(try await environment.get("/todo/a").status == .notFound)
            }
            let note = try await client.get("/listapi").object?["schemas"]?.objectValue?["note"]?.objectValue
            #expect(note?["title"] == "string")
            #expect(note?["pic"] == "binary")
            #expect(note?["tags"] == "array[string]")
            // Production writes to a declared schema; its declared types are enforced.
            let production = client.production()
            #expect(try await production.post("/todo", ["todo_id": "t"]).status == .created)
            #expect(try await production.post("/note", ["title": "hi", "tags": ["a"]]).status == .created)
            #expect(try await production.post("/note", ["title": true]).status == .badRequest)
        }
    }
}
