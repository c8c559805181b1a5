import Foundation
import StackMobCore
import StackMobSQLite
import StackMobTestSupport
import Testing

/// Schemas declared in a file (`environments.<env>.schemas_file`; docs/operations.md, "From
/// development to production"): production, where nothing is inferred, accepts, enforces and
/// queries exactly what was declared.
@Suite("Declared schemas: a production app from a file")
struct DeclaredSchemaTests {
    /// Every field type, a relationship each way, indexes and permissions.
    static let schemaFile = """
        // The app, as a team would commit it.
        {
          "schemas": {
            "category": { "fields": { "name": "string" } },
            "todo": {
              "fields": {
                "title": "string", "priority": "integer", "estimate": "float", "done": "boolean",
                "place": "geopoint", "photo": "binary",
                "tags": "array[string]", "counts": "array[integer]", "weights": "array[float]", "flags": "array[boolean]",
                "category": "one_to_one:category", "watchers": "one_to_many:user"
              },
              "indexes": ["priority", ["done", "priority"]],
              "permissions": { "create": "logged_in", "read": "owner", "update": "owner", "delete": "private_key" }
            },
            "user": { "fields": { "email": "string" } }
          }
        }
        """

    static func configuration(directory: String, schemaFile: String) throws -> StackMobConfiguration {
        let path = (directory as NSString).appendingPathComponent("app.schemas.json")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try schemaFile.write(toFile: path, atomically: true, encoding: .utf8)
        let config = "{\"environments\": {\"production\": {\"schemas_file\": \"\(path)\"}}}"
        let configPath = (directory as NSString).appendingPathComponent("stackmob.json")
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let loaded = try ConfigurationLoader.load(file: configPath, environment: [:])
        var configuration = TestServer.configuration(dataDirectory: directory)
        configuration.production.schemas = loaded.production.schemas
        configuration.production.indexes = loaded.production.indexes
        configuration.production.access = loaded.production.access
        #expect(configuration.production.schemaInference == false)
        return configuration
    }

    @Test("production with inference off accepts, enforces and queries every declared type")
    func productionFromFile() async throws {
        try await TestServer.withDataDirectory { directory in
            let configuration = try Self.configuration(directory: directory, schemaFile: Self.schemaFile)
            let clock = ManualClock()
            try await TestServer.run(configuration: configuration, clock: clock) { client in
                let production = client.production()
                // Declared fields exist before the first write: listapi shows them.
                let listed = try await production.get("/listapi").text
                #expect(listed.contains("array[boolean]") && listed.contains("one_to_many:user") && listed.contains("geopoint"))
                #expect(try await production.post("/user", ["username": "ann", "password": "pw", "email": "ann@example.com"]).status == .created)
                #expect(try await production.post("/user", ["username": "bob", "password": "pw"]).status == .created)
                let ann = try await production.login([("username", "ann"), ("password", "pw")])
                let bob = try await production.login([("username", "bob"), ("password", "pw")])
                let ts = clock.nowMilliseconds() / 1000
                #expect(try await production.post("/category", ["category_id": "c1", "name": "home"]).status == .created)
                // create: logged_in.
                let anonymous = try await production.post("/todo", ["title": "x"])
                #expect(anonymous.status == .unauthorized)
                let photo = "Content-Type: image/png\nContent-Disposition: attachment; filename=a.png\nContent-Transfer-Encoding: base64\n\n"
                    + Data([1, 2, 3]).base64EncodedString()
                let todo: JSONValue = [
                    "todo_id": "t1", "title": "paint", "priority": 2, "estimate": 1.5, "done": false,
                    "place": ["lat": 48.85, "lon": 2.35], "photo": .string(photo),
                    "tags": ["a", "b"], "counts": [1, 2], "weights": [0.5], "flags": [true],
                    "category": "c1", "watchers": ["bob"],
                ]
                let created = try await production.signed(.post, "/todo", session: ann, ts: ts, json: todo)
                #expect(created.status == .created, "\(created.text)")
                #expect(created.object?["sm_owner"] == "user/ann")
                #expect(created.object?["photo"]?.stringValue?.hasPrefix("http") == true)
                // Types are enforced; unknown fields and schemas are refused (no inference).
                let wrongType = try await production.signed(.post, "/todo", session: ann, ts: ts, json: ["title": 5])
                #expect(wrongType.status == .badRequest)
                let unknownField = try await production.signed(.post, "/todo", session: ann, ts: ts, json: ["colour": "red"])
                #expect(unknownField.error == "Field 'colour' does not exist in schema 'todo'")
                #expect(try await production.post("/note", ["text": "x"]).error == "Schema 'note' does not exist")
                // read: owner. Ann reads and queries her todo, expanded; Bob does not see it.
                let query = try await production.signed(
                    .get, "/todo?done=false&priority[gte]=1&tags=a", session: ann, ts: ts, headers: ["X-StackMob-Expand": "1"])
                #expect(query.status == .ok)
                let found = try #require(query.array?.first?.objectValue)
                #expect(found["category"]?.objectValue?["name"] == "home")
                #expect(found["place"]?.objectValue?["lat"] == 48.85)
                let near = try await production.signed(.get, "/todo?place[near]=48.85,2.35", session: ann, ts: ts)
                #expect(near.array?.count == 1)
                #expect(try await production.signed(.get, "/todo/t1", session: bob, ts: ts).status == .notFound)
                // delete: private_key only.
                #expect(try await production.signed(.delete, "/todo/t1", session: ann, ts: ts).status == .unauthorized)
            }
            // The declared indexes were created in the production database (whichever engine).
            let production = try await TestServer.storage(configuration).open(.production, registry: SchemaRegistry(), indexes: [:])
            let indexes = try await production.engine.loadSchemaSettings().indexes["todo"]
            try await production.engine.close()
            #expect(Set(indexes ?? []) == [["done", "priority"], ["priority"]])
        }
    }

    @Test("a restart with the same file changes nothing; a new field is added to stored data")
    func additive() async throws {
        try await TestServer.withDataDirectory { directory in
            let first = try Self.configuration(directory: directory, schemaFile: Self.schemaFile)
            try await TestServer.run(configuration: first) { client async throws in
                #expect(try await client.production().post("/category", ["category_id": "c1", "name": "home"]).status == .created)
            }
            let grown = Self.schemaFile.replacingOccurrences(of: "\"name\": \"string\"", with: "\"name\": \"string\", \"rank\": \"integer\"")
            let second = try Self.configuration(directory: directory, schemaFile: grown)
            try await TestServer.run(configuration: second) { client async throws in
                let production = client.production()
                #expect(try await production.get("/category/c1").object?["name"] == "home")
                #expect(try await production.put("/category/c1", ["rank": 3]).status == .ok)
            }
        }
    }

    @Test("a declaration that contradicts stored data stops start-up with exit 78, naming schema and field, and writes nothing", .sqliteFiles)
    func contradiction() async throws {
        try await TestServer.withDataDirectory { directory in
            try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory)) { client in
                _ = try await client.create("todo", ["todo_id": "t1", "due": "tomorrow"])
            }
            let file = (directory as NSString).appendingPathComponent("schemas.json")
            try #"{"schemas": {"todo": {"fields": {"size": "float", "due": "integer"}}}}"#.write(toFile: file, atomically: true, encoding: .utf8)
            let server = try ServerProcess(
                arguments: ["serve", "--port", "0", "--data-dir", directory], directory: directory,
                environment: ["STACKMOB_PUSH__PORT": "0", "STACKMOB_ENVIRONMENTS__DEVELOPMENT__SCHEMAS_FILE": file])
            #expect(await server.waitForExit() == 78)
            #expect(server.log.contains("schema 'todo', field 'due': declared as integer, but it holds string values"), "\(server.log)")
            let engine = try await SQLiteStorageEngine.open(
                path: (directory as NSString).appendingPathComponent("development.sqlite"), durability: .full, registry: SchemaRegistry())
            let todo = try await engine.loadSchemaDefinitions().first { $0.name == "todo" }
            try await engine.close()
            #expect(todo?.fields == ["due": .string])
        }
    }
}
