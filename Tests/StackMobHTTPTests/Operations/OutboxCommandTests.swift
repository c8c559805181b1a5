import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("The outbox subcommand")
struct OutboxCommandTests {
    @Test("prints the temporary-password mail of forgotPassword; an empty outbox says so")
    func printsOutbox() async throws {
        try await TestServer.withDataDirectory { directory in
            let empty = try ServerProcess(arguments: ["outbox", "--data-dir", directory], directory: NSTemporaryDirectory())
            #expect(await empty.waitForExit() == 0)
            #expect(empty.log.contains("The development outbox is empty."))
            let statuses = try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory)) { client in
                let created = try await client.post("/user", ["username": "alice", "password": "pw", "email": "alice@example.com"])
                let forgot = try await client.post("/user/forgotPassword", ["username": "alice"])
                return [created.status.code, forgot.status.code]
            }
            #expect(statuses == [201, 200])
            let printed = try ServerProcess(arguments: ["outbox", "--data-dir", directory], directory: NSTemporaryDirectory())
            #expect(await printed.waitForExit() == 0)
            #expect(printed.log.contains("To: alice@example.com"))
            #expect(printed.log.contains("Temporary password: "))
            let production = try ServerProcess(
                arguments: ["outbox", "--data-dir", directory, "--environment", "production"], directory: NSTemporaryDirectory())
            #expect(await production.waitForExit() == 0)
            #expect(production.log.contains("The production outbox is empty."))
            let wrong = try ServerProcess(arguments: ["outbox", "--data-dir", directory, "--environment", "staging"], directory: NSTemporaryDirectory())
            #expect(await wrong.waitForExit() != 0)
        }
    }
}
