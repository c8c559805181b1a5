import Foundation
import StackMobCore
import StackMobTestSupport
import Synchronization
import Testing

/// CI mode over the real binary (docs/operations.md, "Use it in CI"): `serve --ephemeral
/// --fixtures`, and resets.
@Suite("CI mode: ephemeral server, fixtures and reset")
struct CIModeTests {
    @Test("an ephemeral server loads its fixture, answers SDK requests and removes its data directory on exit")
    func ephemeralWithFixture() async throws {
        try await TestServer.withDataDirectory { directory in
            let fixture = try OperationsHarness.writeFixture(in: directory)
            let (server, port) = try await OperationsHarness.serve(["--ephemeral", "--fixtures", fixture], in: directory)
            let line = try #require(server.log.split(separator: "\n").first { $0.contains("sm.data_dir=") })
            let dataDirectory = String(try #require(line.split(separator: " ").first { $0.hasPrefix("sm.data_dir=") }).dropFirst("sm.data_dir=".count))
            #expect(FileManager.default.fileExists(atPath: "\(dataDirectory)/development.sqlite"))
            // Nothing is written where the server was started.
            #expect(!FileManager.default.fileExists(atPath: "\(directory)/stackmob-data"))
            try await OperationsHarness.withClient(port: port) { client in
                let todos = try await OperationsHarness.list("todo", client: client)
                #expect(todos.compactMap { $0["todo_id"]?.stringValue } == ["t1", "t2", "t3"])
                #expect(todos.first?["tags"] == ["a", "b"])
                #expect(todos.last?["sm_owner"] == "user/alice")
                // Users log in with the fixture's plain passwords, which were stored hashed.
                _ = try await client.login([("username", "alice"), ("password", "alice-secret")])
                let alice = try await client.get("/user/alice")
                #expect(alice.status == .ok && alice.object?["password"] == nil)
            }
            // Start-up time is measured by scripts/ci_mode_timing.py, with bounds; not here, where
            // the whole suite shares the machine.
            #expect(await server.terminate() == 0)
            #expect(!FileManager.default.fileExists(atPath: dataDirectory), "the ephemeral directory is left behind")
        }
    }

    @Test("a reset during traffic leaves exactly the fixture, atomically, through the CLI and the admin API")
    func resetDuringTraffic() async throws {
        try await TestServer.withDataDirectory { directory in
            let fixture = try OperationsHarness.writeFixture(in: directory)
            let (server, port) = try await OperationsHarness.serve(["--ephemeral", "--fixtures", fixture], in: directory)
            // Changes a reset must undo: an edited fixture object, a deleted one, new objects.
            let before = try await OperationsHarness.withClient(port: port) { client in
                #expect(try await client.put("/todo/t1", ["title": "edited"]).status == .ok)
                #expect(try await client.delete("/todo/t2").status == .ok)
                var created: [String] = []
                for index in 0..<20 {
                    let object = try await client.create("note", ["text": .string("before \(index)")])
                    created.append(try #require(object["note_id"]?.stringValue))
                }
                return created
            }
            let log = TrafficLog()
            async let traffic: Void = withThrowingTaskGroup(of: Void.self) { group in
                // Readers: the fixture's t3 is never missing, whatever the reset is doing.
                for _ in 0..<2 {
                    group.addTask {
                        try await log.loop {
                            try await OperationsHarness.withClient(port: port) { client in
                                while !log.isStopped {
                                    let response = try await client.get("/todo/t3")
                                    log.reads.add(1, ordering: .relaxed)
                                    if response.status != .ok { log.failures.withLock { $0.append("\(response.status.code) \(response.text)") } }
                                }
                            }
                        }
                    }
                }
                group.addTask {
                    try await log.loop {
                        try await OperationsHarness.withClient(port: port) { client in
                            var index = 0
                            while !log.isStopped {
                                _ = try await client.post("/note", ["text": .string("during \(index)")])
                                index += 1
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            // The reset starts once traffic flows, and traffic goes on a while after it.
            try await OperationsHarness.waitUntil { log.isStopped || log.reads.load(ordering: .relaxed) >= 10 }
            let (status, output) = try await OperationsHarness.run(
                ["reset", "--env", "development", "--url", "http://127.0.0.1:\(port)", "--operator", OperationsHarness.operatorName],
                in: directory, environment: ["SM_ADMIN_PASSWORD": OperationsHarness.operatorPassword])
            let readsAtReset = log.reads.load(ordering: .relaxed)
            try await OperationsHarness.waitUntil { log.isStopped || log.reads.load(ordering: .relaxed) >= readsAtReset + 10 }
            log.stop.store(true, ordering: .relaxed)
            try await traffic
            #expect(status == 0, "reset failed: \(output)")
            #expect(output.contains("Reset development: 6 fixture objects written"), "\(output)")
            #expect(log.failures.withLock { $0 }.isEmpty, "reads failed during the reset: \(log.failures.withLock { $0.prefix(3) })")
            #expect(log.reads.load(ordering: .relaxed) >= 20)
            try await OperationsHarness.withClient(port: port) { client in
                // What was written before the reset is gone; the fixture is back.
                let notes = try await OperationsHarness.list("note", client: client).compactMap { $0["note_id"]?.stringValue }
                #expect(Set(notes).isDisjoint(with: before))
                let todos = try await OperationsHarness.list("todo", client: client)
                #expect(todos.compactMap { $0["todo_id"]?.stringValue } == ["t1", "t2", "t3"])
                #expect(todos.first?["title"] == "first")
                // With no traffic, a reset through the admin API leaves exactly the fixture.
                let session = try await client.withoutKey.post(
                    "/_admin/session", ["name": .string(OperationsHarness.operatorName), "password": .string(OperationsHarness.operatorPassword)])
                let token = try #require(session.object?["token"]?.stringValue)
                let reset = try await client.withoutKey.post("/_admin/environments/development/reset", [:], headers: ["Authorization": "Bearer \(token)"])
                #expect(reset.status == .ok && reset.object?["objects"] == 6)
                #expect(try await OperationsHarness.list("note", client: client).isEmpty)
                #expect(try await OperationsHarness.list("user", primaryKey: "username", client: client).compactMap { $0["username"]?.stringValue } == ["alice", "bob"])
                // App keys never open it.
                let denied = try await client.post("/_admin/environments/development/reset", [:])
                #expect(denied.status == .unauthorized)
            }
            #expect(await server.terminate() == 0)
        }
    }

    @Test("a reset keeps the fixture users' sessions and ends those of every other user, whose login a new account may take")
    func resetEndsOtherUsersSessions() async throws {
        try await TestServer.withDataDirectory { directory in
            let fixture = try OperationsHarness.writeFixture(in: directory)
            let (server, port) = try await OperationsHarness.serve(["--ephemeral", "--fixtures", fixture], in: directory)
            try await OperationsHarness.withClient(port: port, authority: "localhost") { client in
                let now = { Int64(Date().timeIntervalSince1970) }
                let alice = try await client.login([("username", "alice"), ("password", "alice-secret")])
                #expect(try await client.post("/user", ["username": "mallory", "password": "first"]).status == .created)
                let mallory = try await client.login([("username", "mallory"), ("password", "first")])
                #expect(try await client.signed(.get, "/user/loggedInUser", session: mallory, ts: now()).status == .ok)

                let session = try await client.withoutKey.post(
                    "/_admin/session", ["name": .string(OperationsHarness.operatorName), "password": .string(OperationsHarness.operatorPassword)])
                let token = try #require(session.object?["token"]?.stringValue)
                let reset = try await client.withoutKey.post("/_admin/environments/development/reset", [:], headers: ["Authorization": "Bearer \(token)"])
                #expect(reset.status == .ok, "\(reset.text)")

                #expect(try await client.signed(.get, "/user/loggedInUser", session: alice, ts: now()).object?["username"] == "alice")
                // Someone else registers the login; what the earlier mallory held is dead.
                #expect(try await client.post("/user", ["username": "mallory", "password": "second"]).status == .created)
                let old = try await client.signed(.get, "/user/loggedInUser", session: mallory, ts: now())
                #expect(old.status == .unauthorized, "\(old.text)")
                let refreshed = try await client.postForm(
                    "/user/refreshToken", [("refresh_token", mallory.refreshToken), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")])
                #expect(refreshed.status == .unauthorized, "\(refreshed.text)")
            }
            #expect(await server.terminate() == 0)
        }
    }

    @Test("a fixture file that does not parse stops start-up with exit code 78 and names the key")
    func badFixture() async throws {
        try await TestServer.withDataDirectory { directory in
            let fixture = try OperationsHarness.writeFixture(["environments": ["staging": [:]]], in: directory)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let server = try ServerProcess(
                arguments: ["serve", "--port", "0", "--ephemeral", "--fixtures", fixture], directory: directory, environment: OperationsHarness.environment)
            #expect(await server.waitForExit() == 78)
            #expect(server.log.contains("configuration key 'fixtures.environments.staging': must be development or production"), "\(server.log)")
        }
    }
}
