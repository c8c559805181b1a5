import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("The admin subcommand: operator accounts")
struct AdminCommandTests {
    @Test("serve says how to open a closed admin API; admin add reads the password from stdin and the operator can sign in")
    func addOperator() async throws {
        try await TestServer.withDataDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let server = try ServerProcess(
                arguments: ["serve", "--port", "0", "--data-dir", directory], directory: directory, environment: ["STACKMOB_PUSH__PORT": "0"])
            #expect(try await server.waitForLog(containing: "Admin API closed: no operator account; open it with: stackmob-server admin add <name>"))
            _ = await server.terminate()

            let binary = ServerProcess.executableURL.path
            let script = "printf 'a-long-password\\n' | '\(binary)' admin add ops --data-dir '\(directory)'"
            let add = try ServerProcess(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script], directory: directory)
            #expect(await add.waitForExit() == 0)
            #expect(add.log.contains("Operator 'ops' created."))
            #expect(!add.log.contains("a-long-password"))
            let again = try ServerProcess(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script], directory: directory)
            #expect(await again.waitForExit() == 1)
            #expect(again.log.contains("The operator 'ops' already exists"))
            let short = try ServerProcess(
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", "printf 'short\\n' | '\(binary)' admin add other --data-dir '\(directory)'"], directory: directory)
            #expect(await short.waitForExit() == 1)
            #expect(short.log.contains("password: must be at least 8 characters long"))
            // People's names, as operators spell them; never a path segment of dots.
            let named = try ServerProcess(
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", "printf 'a-long-password\\n' | '\(binary)' admin add ops-olga.k --data-dir '\(directory)'"], directory: directory)
            #expect(await named.waitForExit() == 0, "\(named.log)")
            for refused in ["..", ".hidden", "Olga", "olga/x"] {
                let add = try ServerProcess(
                    executable: URL(fileURLWithPath: "/bin/sh"),
                    arguments: ["-c", "printf 'a-long-password\\n' | '\(binary)' admin add '\(refused)' --data-dir '\(directory)'"], directory: directory)
                #expect(await add.waitForExit() == 1, "\(refused): \(add.log)")
            }

            let configuration = TestServer.configuration(dataDirectory: directory)
            let statuses = try await TestServer.run(configuration: configuration) { client in
                [
                    try await client.post("/_admin/session", ["name": "ops", "password": "a-long-password"]).status.code,
                    try await client.post("/_admin/session", ["name": "ops-olga.k", "password": "a-long-password"]).status.code,
                ]
            }
            #expect(statuses == [200, 200])
        }
    }
}
