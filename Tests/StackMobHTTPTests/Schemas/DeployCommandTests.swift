import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// From a development app built by inference to production (docs/operations.md, "From development
/// to production"), through the spawned binary: `schema export`, `schema diff`, `deploy`.
@Suite("Schemas as code: export, diff and deploy from the command line")
struct DeployCommandTests {
    static func run(_ arguments: [String], directory: String) async throws -> (status: Int32, output: String) {
        let process = try ServerProcess(arguments: arguments + ["--data-dir", directory], directory: directory)
        let status = await process.waitForExit()
        return (status, process.log)
    }

    /// The document `schema export` printed, without any log line around it: the child's standard
    /// output and error share one pipe here (`ServerProcess`), and a start on PostgreSQL may log
    /// postgres-nio's warning about a connection leased before its client ran
    /// (`PostgresPool`). The document itself is on standard output alone.
    static func document(in output: String) -> String {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.firstIndex(of: "{"), let last = lines.lastIndex(of: "}"), first < last else { return output }
        return lines[first...last].joined(separator: "\n") + "\n"
    }

    /// What an app's SDK sends: a todo with a category (related), tags, a place and a flag.
    static func buildDevelopmentApp(_ client: StackMobClient) async throws {
        let todo = try await client.post(
            "/todo", ["todo_id": "t1", "title": "paint", "priority": 2, "done": false, "tags": ["home"], "place": ["lat": 1.5, "lon": 2.5],
                      "category": ["category_id": "c1", "name": "house"]],
            headers: ["X-StackMob-Relations": "category=category"])
        guard todo.status == .created else { throw TestFailure("seeding answered \(todo.status.code): \(todo.text)") }
        #expect(try await client.post("/user", ["username": "ann", "password": "pw", "email": "a@example.com"]).status == .created)
    }

    @Test("an inferred development app is exported, diffed, deployed to production, and production then serves it")
    func exportDiffDeploy() async throws {
        try await TestServer.withDataDirectory { directory in
            let configuration = TestServer.configuration(dataDirectory: directory)
            try await TestServer.run(configuration: configuration) { client in
                try await Self.buildDevelopmentApp(client)
                // Production knows nothing yet.
                #expect(try await client.production().post("/todo", ["title": "x"]).error == "Schema 'todo' does not exist")
            }
            let export = try await Self.run(["schema", "export", "--env", "development"], directory: directory)
            #expect(export.status == 0, "\(export.output)")
            let exported = Self.document(in: export.output)
            let declared = try SchemaDeclarations.parseDocument(try JSONParser.parse(Array(exported.utf8)), source: "export")
            #expect(declared["todo"]?.fields["category"] == .relation(target: "category", toMany: false))
            #expect(declared["todo"]?.fields["place"] == .geopoint)
            #expect(declared["todo"]?.fields["tags"] == .array(.string))
            #expect(declared["user"]?.primaryKey == "username" && declared["user"]?.fields["password"] == nil)
            // The export is the file a team commits; it may be edited like any config file.
            let file = (directory as NSString).appendingPathComponent("app.schemas.json")
            let edited = exported.replacingOccurrences(
                of: "\"fields\": {\n        \"category\"", with: "\"indexes\": [\"priority\"],\n      \"fields\": {\n        \"category\"")
            #expect(edited != exported)
            try edited.write(toFile: file, atomically: true, encoding: .utf8)

            let diff = try await Self.run(["schema", "diff", "--file", file, "--env", "production"], directory: directory)
            #expect(diff.status == 0)
            #expect(diff.output.contains("+ schema todo (primary key todo_id)"))
            #expect(diff.output.contains("+ field todo.category: one_to_one:category"))
            #expect(diff.output.contains("+ index todo(priority)"))
            #expect(diff.output.contains("+ field user.email: string"))
            let deploy = try await Self.run(["deploy", "--file", file, "--to", "production"], directory: directory)
            #expect(deploy.status == 0, "\(deploy.output)")
            #expect(deploy.output.contains("Applied to production:"))
            let again = try await Self.run(["schema", "diff", "--from", "development"], directory: directory)
            #expect(again.output.contains("No changes"), "\(again.output)")

            try await TestServer.run(configuration: configuration) { client in
                let production = client.production()
                #expect(try await production.post("/user", ["username": "ann", "password": "pw", "email": "a@example.com"]).status == .created)
                let todo = try await production.post(
                    "/todo", ["todo_id": "t1", "title": "paint", "priority": 2, "done": false, "tags": ["home"], "place": ["lat": 1.5, "lon": 2.5],
                              "category": ["category_id": "c1", "name": "house"]],
                    headers: ["X-StackMob-Relations": "category=category"])
                #expect(todo.status == .created, "\(todo.text)")
                let expanded = try await production.get("/todo?priority[gte]=1&done=false", headers: ["X-StackMob-Expand": "1"])
                #expect(expanded.array?.first?.objectValue?["category"]?.objectValue?["name"] == "house")
                // Still no inference: a field nobody declared is refused.
                #expect(try await production.post("/todo", ["colour": "red"]).error == "Field 'colour' does not exist in schema 'todo'")
                _ = try await production.login([("username", "ann"), ("password", "pw")])
            }
        }
    }

    @Test("a deploy that contradicts production's data changes nothing and names schema and field; a bad file names the key")
    func conflicts() async throws {
        try await TestServer.withDataDirectory { directory in
            try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory)) { client in
                try await Self.buildDevelopmentApp(client)
            }
            #expect(try await Self.run(["deploy"], directory: directory).status == 0)
            let file = (directory as NSString).appendingPathComponent("bad.json")
            try #"{"schemas": {"note": {"fields": {"text": "string"}}, "todo": {"fields": {"priority": "string"}}}}"#
                .write(toFile: file, atomically: true, encoding: .utf8)
            let refused = try await Self.run(["deploy", "--file", file], directory: directory)
            #expect(refused.status == 1)
            #expect(refused.output.contains("! schema 'todo', field 'priority': declared as string, but it holds integer values"), "\(refused.output)")
            let unchanged = try await Self.run(["schema", "export", "--env", "production"], directory: directory)
            #expect(!unchanged.output.contains("\"note\""))
            try #"{"schemas": {"todo": {"fields": {"priority": "decimal"}}}}"#.write(toFile: file, atomically: true, encoding: .utf8)
            let badType = try await Self.run(["schema", "diff", "--file", file], directory: directory)
            #expect(badType.status == 78)
            #expect(badType.output.contains("'\(file).schemas.todo.fields.priority': unknown type"), "\(badType.output)")
        }
    }

    @Test("fields and schemas are dropped only with --drop, after a copy of the database; without it they are listed as kept")
    func dropOnlyWhenAsked() async throws {
        try await TestServer.withDataDirectory { directory in
            try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory)) { client in
                try await Self.buildDevelopmentApp(client)
                #expect(try await client.post("/note", ["note_id": "n1", "text": "x"]).status == .created)
            }
            #expect(try await Self.run(["deploy"], directory: directory).status == 0)
            let file = (directory as NSString).appendingPathComponent("smaller.json")
            try #"{"schemas": {"category": {"fields": {"name": "string"}}, "todo": {"fields": {"title": "string", "category": "one_to_one:category"}}}}"#
                .write(toFile: file, atomically: true, encoding: .utf8)
            let kept = try await Self.run(["deploy", "--file", file], directory: directory)
            #expect(kept.status == 0)
            #expect(kept.output.contains("Kept (in production but not declared; only deploy --drop removes them, after a backup):"))
            #expect(kept.output.contains("  field todo.place") && kept.output.contains("  schema note"), "\(kept.output)")
            // The user schema, its password and aclrole are never dropped; neither is a relationship's target.
            #expect(!kept.output.contains("schema user") && !kept.output.contains("schema category"))

            let dropped = try await Self.run(["deploy", "--file", file, "--drop"], directory: directory)
            #expect(dropped.status == 0, "\(dropped.output)")
            #expect(dropped.output.contains("- field todo.place") && dropped.output.contains("- schema note"))
            if TestServer.postgreSQLURL == nil {
                // SQLite copies the database first; on PostgreSQL the operator's own backups do.
                let backups = try FileManager.default.contentsOfDirectory(atPath: (directory as NSString).appendingPathComponent("backups"))
                #expect(backups.count == 1 && backups[0].hasPrefix("production-") && backups[0].hasSuffix(".before-drop.sqlite"), "\(backups)")
                // Not a scheduled copy: rotation never deletes it.
                #expect(BackupRounds.copies(in: (directory as NSString).appendingPathComponent("backups")).isEmpty)
            }
            let export = try await Self.run(["schema", "export", "--env", "production"], directory: directory)
            #expect(!export.output.contains("\"place\"") && !export.output.contains("\"note\""))
            #expect(export.output.contains("\"title\""))
            try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory)) { client async throws in
                let production = client.production()
                #expect(try await production.post("/todo", ["todo_id": "t9", "title": "ok", "category": "c1"]).status == .created)
                #expect(try await production.post("/todo", ["place": ["lat": 1, "lon": 2]]).status == .badRequest)
                #expect(try await production.post("/note", ["text": "y"]).error == "Schema 'note' does not exist")
            }
        }
    }
}
