import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// `export` and `import` over the real binary (docs/operations.md, "Export and import").
@Suite("Export and import")
struct ExportImportTests {
    /// A data directory with the fixture, plus objects written through the API by a logged-in
    /// user (owner, relation, dates set by the server) and a push token; the server is stopped.
    private static func populated(_ directory: String) async throws -> String {
        let data = "\(directory)/source"
        let fixture = try OperationsHarness.writeFixture(in: directory)
        let (server, port) = try await OperationsHarness.serve(["--data-dir", data, "--fixtures", fixture], in: directory)
        try await OperationsHarness.withClient(port: port, authority: "localhost") { client in
            let session = try await client.login([("username", "bob"), ("password", "bob-secret")])
            for index in 0..<25 {
                let body: JSONValue = ["comment_id": .string("c\(index)"), "text": .string("note \(index) é \u{1F600}"), "todo": "t1", "score": .float(Double(index) / 3)]
                let response = try await client.signed(.post, "/comment", session: session, ts: Int64(Date().timeIntervalSince1970), json: body)
                #expect(response.status == .created, "\(response.text)")
            }
            #expect(try await client.post("/push/register_device_token_universal", ["userId": "bob", "token": ["type": "android", "token": "APA91-token-1"]]).status == .ok)
        }
        #expect(await server.terminate() == 0)
        return data
    }

    private static func file(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("export, then import into an empty environment, keeps every object byte for byte; a second import changes nothing")
    func roundTrip() async throws {
        try await TestServer.withDataDirectory { directory in
            let source = try await Self.populated(directory)
            let (exported, exportOutput) = try await OperationsHarness.run(
                ["export", "--data-dir", source, "--env", "development", "--out", "\(directory)/dump"], in: directory)
            #expect(exported == 0, "\(exportOutput)")
            let comments = try #require(Self.file("\(directory)/dump/objects/comment.jsonl"))
            #expect(comments.split(separator: "\n").count == 25)
            #expect(comments.contains("\"sm_owner\":\"user/bob\""))
            let users = try #require(Self.file("\(directory)/dump/objects/user.jsonl"))
            #expect(!users.contains("alice-secret") && users.contains("\"password\":"), "users carry hashes, never plain passwords")
            #expect(Self.file("\(directory)/dump/push_tokens.jsonl")?.contains("APA91-token-1") == true)

            let target = "\(directory)/target"
            let (imported, importOutput) = try await OperationsHarness.run(
                ["import", "--data-dir", target, "--env", "development", "--from", "\(directory)/dump"], in: directory)
            #expect(imported == 0, "\(importOutput)")
            #expect(importOutput.contains("Imported 31 of 31 objects"), "plain progress lines off a terminal: \(importOutput)")
            #expect(importOutput.contains("31 new, 0 replaced, 0 unchanged objects; 1 push tokens added"), "\(importOutput)")
            // The target, exported in turn, holds the same bytes.
            #expect(try await OperationsHarness.run(["export", "--data-dir", target, "--out", "\(directory)/again"], in: directory).0 == 0)
            for name in ["objects/comment.jsonl", "objects/todo.jsonl", "objects/user.jsonl", "objects/aclrole.jsonl", "schemas.json", "push_tokens.jsonl"] {
                #expect(Self.file("\(directory)/dump/\(name)") == Self.file("\(directory)/again/\(name)"), "\(name) differs after the round trip")
            }
            let (second, secondOutput) = try await OperationsHarness.run(
                ["import", "--data-dir", target, "--env", "development", "--from", "\(directory)/dump"], in: directory)
            #expect(second == 0 && secondOutput.contains("0 new, 0 replaced, 31 unchanged objects; 0 push tokens added"), "\(secondOutput)")
            // The imported server serves the old password hashes and owners.
            let (server, port) = try await OperationsHarness.serve(["--data-dir", target], in: directory)
            try await OperationsHarness.withClient(port: port) { client in
                _ = try await client.login([("username", "alice"), ("password", "alice-secret")])
                let comment = try await client.get("/comment/c3")
                #expect(comment.object?["sm_owner"] == "user/bob" && comment.object?["todo"] == "t1")
            }
            #expect(await server.terminate() == 0)
        }
    }

    @Test("export --files, then import, brings the binary fields' files along, byte for byte and private")
    func filesRoundTrip() async throws {
        try await TestServer.withDataDirectory { directory in
            let source = "\(directory)/source"
            let original = BinaryFieldTests.randomBytes(200_000)
            let (server, port) = try await OperationsHarness.serve(["--data-dir", source], in: directory)
            let path = try await OperationsHarness.withClient(port: port) { client in
                let created = try await client.create("photo", ["title": "cat", "pic": .string(BinaryFieldTests.envelope(original, filename: "cat.png"))])
                return try BinaryFieldTests.path(of: try #require(created["pic"]?.stringValue))
            }
            #expect(await server.terminate() == 0)
            let (exported, exportOutput) = try await OperationsHarness.run(
                ["export", "--data-dir", source, "--out", "\(directory)/dump", "--files"], in: directory)
            #expect(exported == 0 && exportOutput.contains("with files"), "\(exportOutput)")
            let target = "\(directory)/target"
            let (imported, importOutput) = try await OperationsHarness.run(["import", "--data-dir", target, "--from", "\(directory)/dump"], in: directory)
            #expect(imported == 0, "\(importOutput)")
            let stored = target + "/files" + path.replacingOccurrences(of: "/_files", with: "")
            #expect(PrivateFiles.mode(ofItemAtPath: stored) == 0o600, "\(stored)")
            let (again, againPort) = try await OperationsHarness.serve(["--data-dir", target], in: directory)
            try await OperationsHarness.withClient(port: againPort) { client in
                let download = try await client.withoutKey.get(path)
                #expect(download.status == .ok && download.body == original && download.header("Content-Type") == "image/png")
            }
            #expect(await again.terminate() == 0)
        }
    }

    @Test("every file of an export, its stored files included, is on the disk before the manifest names a whole export, and the manifest's name after")
    func durableExport() async throws {
        try await TestServer.withDataDirectory { directory in
            let configuration = TestServer.configuration(dataDirectory: "\(directory)/source")
            try await Backend.withOpened(configuration, storage: try TestServer.storage(configuration), logger: TestServer.quietLogger) { backend in
                _ = try await backend.environment(.development).datastore.createMany([["text": "kept"]], in: "note", caller: .privateKey)
            }
            // A stored file as the local store keeps it, for `--files`.
            let stored = "\(directory)/source/files/development/photo/p1/pic"
            try FileManager.default.createDirectory(atPath: stored, withIntermediateDirectories: true)
            try Data("png".utf8).write(to: URL(fileURLWithPath: stored + "/cat.png"))
            let dump = "\(directory)/dump"
            let recorder = SyncRecorder { FileManager.default.fileExists(atPath: dump + "/manifest.json") ? "manifest" : "no manifest" }
            let summary = try await ExportTool.export(
                configuration: configuration, storage: try TestServer.storage(configuration), environment: .development, to: dump, includeFiles: true,
                logger: TestServer.quietLogger, disk: recorder.disk)
            #expect(summary.files && summary.objects["note"] == 1)
            let items = SyncRecorder.tree(atPath: dump).filter { !$0.hasSuffix("/manifest.json") }
            #expect(items.contains(dump + "/files/photo/p1/pic/cat.png") && items.contains(dump + "/objects/note.jsonl"), "\(items)")
            for item in items {
                let first = try #require(recorder.firstSync(ofItemAtPath: item), "\(item) never synced")
                #expect(recorder.synced[first].observed == "no manifest", "\(item)")
            }
            let manifest = try #require(recorder.firstSync(ofItemAtPath: dump + "/manifest.json"))
            #expect(recorder.synced[manifest].observed == "no manifest")
            let named = try #require(recorder.lastSync(ofItemAtPath: dump))
            #expect(named > manifest && recorder.synced[named].observed == "manifest", "\(recorder.synced)")
        }
    }

    @Test("an import that replaces a user with another account of the same login ends the replaced account's sessions")
    func importReplacingAUser() async throws {
        try await TestServer.withDataDirectory { directory in
            let source = try await Self.populated(directory)
            #expect(try await OperationsHarness.run(["export", "--data-dir", source, "--out", "\(directory)/dump"], in: directory).0 == 0)
            // The target holds another bob, signed in.
            let target = "\(directory)/target"
            let (first, firstPort) = try await OperationsHarness.serve(["--data-dir", target], in: directory)
            let impostor = try await OperationsHarness.withClient(port: firstPort, authority: "localhost") { client in
                #expect(try await client.post("/user", ["username": "bob", "password": "impostor"]).status == .created)
                let session = try await client.login([("username", "bob"), ("password", "impostor")])
                #expect(try await client.signed(.get, "/user/loggedInUser", session: session, ts: Int64(Date().timeIntervalSince1970)).status == .ok)
                return session
            }
            #expect(await first.terminate() == 0)

            let (imported, output) = try await OperationsHarness.run(["import", "--data-dir", target, "--from", "\(directory)/dump"], in: directory)
            #expect(imported == 0 && output.contains("1 replaced"), "\(output)")
            let (server, port) = try await OperationsHarness.serve(["--data-dir", target], in: directory)
            try await OperationsHarness.withClient(port: port, authority: "localhost") { client in
                let old = try await client.signed(.get, "/user/loggedInUser", session: impostor, ts: Int64(Date().timeIntervalSince1970))
                #expect(old.status == .unauthorized, "\(old.text)")
                _ = try await client.login([("username", "bob"), ("password", "bob-secret")])
            }
            #expect(await server.terminate() == 0)
        }
    }

    @Test("import refuses a bad JSON line or a value of the wrong type with the line number, and writes nothing", arguments: [
        ("{\"todo_id\": \"t9\", \"title\": ", "objects/todo.jsonl line 4: not valid JSON"),
        ("{\"todo_id\": \"t9\", \"title\": 5}", "objects/todo.jsonl line 4: the field 'title' must hold string values"),
        ("{\"todo_id\": \"t9\", \"colour\": \"red\"}", "objects/todo.jsonl line 4: the field 'colour' is not declared for schema 'todo'"),
    ])
    func refusesBadFile(line: String, message: String) async throws {
        try await TestServer.withDataDirectory { directory in
            let source = try await Self.populated(directory)
            #expect(try await OperationsHarness.run(["export", "--data-dir", source, "--out", "\(directory)/dump"], in: directory).0 == 0)
            let path = "\(directory)/dump/objects/todo.jsonl"
            try Data(((Self.file(path) ?? "") + line + "\n").utf8).write(to: URL(fileURLWithPath: path))
            let target = "\(directory)/target"
            let (status, output) = try await OperationsHarness.run(["import", "--data-dir", target, "--from", "\(directory)/dump"], in: directory)
            #expect(status == 1)
            #expect(output.contains(message), "\(output)")
            // Nothing was written: the target has no todo schema and no objects.
            #expect(try await OperationsHarness.run(["export", "--data-dir", target, "--out", "\(directory)/after"], in: directory).0 == 0)
            #expect(Self.file("\(directory)/after/objects/todo.jsonl") == nil)
            #expect(Self.file("\(directory)/after/objects/comment.jsonl") == nil)
        }
    }
}
