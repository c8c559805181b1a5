import Foundation
import HummingbirdTesting
import StackMobCore
import StackMobTestSupport
import Testing

/// The binary as a newcomer or a CI pipeline runs it: no configuration, a clean directory.
@Suite("The stackmob-server executable", .tags(.timing))
struct ExecutableTests {
    @Test("with no configuration it serves development, creating its data directory, and stops on SIGTERM")
    func zeroConfiguration() async throws {
        try await TestServer.withDataDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            // Port 0: the only flag, so that parallel test runs do not collide on 8080.
            // The push host's port too (it defaults to 8081).
            let server = try ServerProcess(arguments: ["serve", "--port", "0"], directory: directory, environment: ["STACKMOB_PUSH__PORT": "0"])
            let started = ContinuousClock.now
            let port = try #require(try await server.listeningPort(), "server did not start: \(server.log)")
            let startup = ContinuousClock.now - started
            #expect(startup < .seconds(10), "start-up took \(startup)")
            // The default data directory, the database files and the keys file exist.
            // (On PostgreSQL the data is in the database: only the keys file is local.)
            let files = TestServer.postgreSQLURL == nil ? ["development.sqlite", "production.sqlite", "keys.json"] : ["keys.json"]
            for file in files {
                #expect(FileManager.default.fileExists(atPath: "\(directory)/stackmob-data/\(file)"), "\(file)")
            }
            // The development public key is printed, and works.
            let keyLine = try #require(server.log.split(separator: "\n").first { $0.contains("sm.environment=development") && $0.contains("sm.public_key=") })
            let key = try #require(keyLine.split(separator: " ").first { $0.hasPrefix("sm.public_key=") }?.dropFirst("sm.public_key=".count))
            try await TestClient.withClient(host: "127.0.0.1", port: port) { connection in
                let client = StackMobClient(connection: connection, port: port, publicKey: String(key))
                #expect(try await client.head("/").status == .ok)
                let created = try await client.post("/todo", ["title": "from the binary"])
                #expect(created.status == .created)
            }
            #expect(await server.terminate() == 0)
        }
    }

    @Test("an invalid configuration stops start-up with exit code 78 and names the key")
    func invalidConfiguration() async throws {
        try await TestServer.withDataDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let server = try ServerProcess(
                arguments: ["serve", "--port", "0"], directory: directory, environment: ["STACKMOB_LISTEN__PORT": "eighty"])
            #expect(await server.waitForExit() == 78)
            #expect(server.log.contains("configuration key 'listen.port': must be an integer from 0 to 65535"))
        }
    }

    @Test("under steady load the server reuses its memory rather than fault pages in on every request")
    func steadyLoadReusesMemory() async throws {
        try await TestServer.withDataDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let server = try ServerProcess(arguments: ["serve", "--port", "0"], directory: directory, environment: ["STACKMOB_PUSH__PORT": "0"])
            let port = try #require(try await server.listeningPort(), "server did not start: \(server.log)")
            // Concurrent connections, as under real load: each request's memory comes from the
            // arena of whichever thread serves it.
            let connections = 16, requests = 150
            @Sendable func load() async throws {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<connections {
                        group.addTask {
                            try await TestClient.withClient(host: "127.0.0.1", port: port) { connection in
                                let client = StackMobClient(connection: connection, port: port, publicKey: "unused")
                                for _ in 0..<requests {
                                    let status = try await client.head("/").status
                                    #expect(status == .ok)
                                }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            try await load()
            let before = try Self.minorFaults(of: server.processID)
            try await load()
            let perRequest = Double(try Self.minorFaults(of: server.processID) - before) / Double(connections * requests)
            // glibc's default gives the top of each heap back and faults it in again: 0.3 to 1.2
            // faults per request here without `MallocTuning` (4 in a release build under wrk),
            // under 0.04 with it.
            #expect(perRequest < 0.15, "\(perRequest) page faults per request")
            #expect(await server.terminate() == 0)
        }
    }

    /// Minor page faults of every thread of `pid` so far (/proc/<pid>/stat, field 10).
    private static func minorFaults(of pid: pid_t) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = try #require(stat.split(separator: ")").last).split(separator: " ")
        return try #require(Int(fields[7]))
    }
}
