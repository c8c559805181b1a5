import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// The mail outbox (no SMTP configured) keeps a usable temporary password in development only
/// (docs/guide.md, "Mail").
@Suite("Data at rest: the production outbox")
struct OutboxRedactionTests {
    @Test("production's outbox keeps no usable temporary password; development's keeps it for the developer")
    func redacted() async throws {
        try await TestServer.withDataDirectory { directory in
            var settings = TestServer.configuration(dataDirectory: directory)
            settings.production.schemaInference = true
            // Every word of the message is tried as a password below.
            settings.failureLimits.failuresPerAccount = 1_000
            settings.failureLimits.failuresPerAddress = 1_000
            let configuration = settings
            try await TestServer.run(configuration: configuration) { client in
                let production = client.production()
                #expect(try await production.post("/user", ["username": "ann", "password": "pw-ann", "email": "ann@example.com"]).status == .created)
                #expect(try await production.post("/user/forgotPassword", ["username": "ann"]).status == .ok)
                let entry = try #require(try await Outbox.read(storage: try TestServer.storage(configuration), environment: .production).last)
                #expect(entry.message.to == "ann@example.com")
                #expect(entry.message.body.contains("Temporary password: [redacted]"), "\(entry.message.body)")
                // Whatever the message holds, none of it completes the temporary-password login.
                for word in Set(entry.message.body.split(whereSeparator: \.isWhitespace).map(String.init)) {
                    let login = try await production.postForm(
                        "/user/accessToken", [("username", "ann"), ("password", word), ("new_password", "pw-new")])
                    #expect(login.status == .unauthorized, "'\(word)' from the outbox logs in")
                }
                _ = try await production.login([("username", "ann"), ("password", "pw-ann")])

                // Development: the message is whole, and its temporary password works.
                #expect(try await client.post("/user", ["username": "bo", "password": "pw-bo", "email": "bo@example.com"]).status == .created)
                #expect(try await client.post("/user/forgotPassword", ["username": "bo"]).status == .ok)
                let (recipient, temporary) = try await PasswordFlowTests.temporaryPassword(in: directory)
                #expect(recipient == "bo@example.com")
                let login = try await client.postForm("/user/accessToken", [("username", "bo"), ("password", temporary), ("new_password", "pw-new")])
                #expect(login.status == .ok)
            }
        }
    }
}
