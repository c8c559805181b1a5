import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// `stackmob-server html5 …` as an operator runs it, and the HTML5 keys checked at start-up.
@Suite("HTML5 hosting: the html5 subcommands")
struct HTML5CommandTests {
    func run(_ arguments: [String], in directory: String) async throws -> (status: Int32, log: String) {
        let process = try ServerProcess(arguments: ["html5"] + arguments + ["--data-dir", directory], directory: directory)
        let status = await process.waitForExit()
        return (status, process.log)
    }

    @Test("deploy, list, rollback, promote; clear errors for a missing directory and a link outside it")
    func subcommands() async throws {
        try await TestServer.withDataDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let missing = try await run(["deploy", directory + "/nope"], in: directory)
            #expect(missing.status == 1)
            #expect(missing.log.contains("The directory '\(directory)/nope' does not exist"))
            let first = try HTML5Fixture.source(["index.html": "one"], in: directory)
            let second = try HTML5Fixture.source(["index.html": "two"], in: directory)
            #expect(try await run(["deploy", first, "--env", "development"], in: directory).log.contains("as version 1"))
            #expect(try await run(["deploy", second], in: directory).log.contains("as version 2"))
            let listed = try await run(["list"], in: directory)
            #expect(listed.status == 0 && listed.log.contains("  1\n* 2"))
            let rolledBack = try await run(["rollback", "--env", "development"], in: directory)
            #expect(rolledBack.status == 0 && rolledBack.log.contains("development now serves version 1."))
            let promoted = try await run(["promote"], in: directory)
            #expect(promoted.status == 0 && promoted.log.contains("to production as version 1"))
            let production = HTML5Deployments(dataDirectory: directory).current(.production)
            let served = try #require(production).site.appendingPathComponent("index.html")
            #expect(try String(contentsOf: served, encoding: .utf8) == "one")
            // Refused without touching what is served.
            try FileManager.default.createSymbolicLink(atPath: second + "/escape.txt", withDestinationPath: "/etc/hostname")
            let outside = try await run(["deploy", second], in: directory)
            #expect(outside.status == 1 && outside.log.contains("is a symbolic link to a path outside the deployed directory"))
            #expect(try await run(["rollback"], in: directory).log.contains("development has no earlier version to roll back to"))
            #expect(try await run(["deploy", first, "--env", "staging"], in: directory).status != 0)
            #expect(try await run(["list", "--env", "production"], in: directory).log.contains("* 1"))
            // While another deploy of development runs (the admin API's), the CLI's is refused.
            try await DeployLockHolder.holding(directory + "/html5/development") {
                let busy = try await run(["deploy", first], in: directory)
                #expect(busy.status == 1 && busy.log.contains("Another deploy, rollback or promote of development is running"), "\(busy.log)")
            }
            #expect(try await run(["list"], in: directory).log.contains("* 1\n  2"))
        }
    }

    @Test("an HTML5 port that clashes with the API's stops start-up with exit code 78 naming the key")
    func clashingPort() async throws {
        try await TestServer.withDataDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let server = try ServerProcess(
                arguments: ["serve", "--port", "9555"], directory: directory,
                environment: ["STACKMOB_HTML5__DEVELOPMENT__LISTEN": "true", "STACKMOB_HTML5__DEVELOPMENT__PORT": "9555"])
            #expect(await server.waitForExit() == 78)
            #expect(server.log.contains("configuration key 'html5.development.port': must differ from listen.port"))
        }
    }
}
