import Foundation
import Logging
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("Logs never carry a password, token or MAC key")
struct SecretLoggingTests {
    @Test("every user flow, logged at trace level, leaks no secret; the outbox line names recipient and id only")
    func noSecretsInLogs() async throws {
        let (logger, store) = CapturingLogHandler.logger()
        let clock = ManualClock()
        try await TestServer.withDataDirectory { directory in
            let configuration = TestServer.configuration(dataDirectory: directory)
            var secrets: [String] = ["first-Secret-pw", "second-Secret-pw", "third-Secret-pw"]
            let sessions = try await TestServer.run(configuration: configuration, clock: clock, logger: logger) { client in
                let ts = clock.nowMilliseconds() / 1000
                #expect(try await client.post("/user", ["username": "alice", "password": "first-Secret-pw", "email": "alice@example.com"]).status == .created)
                let first = try await client.login([("username", "alice"), ("password", "first-Secret-pw")])
                #expect(try await client.get("/user/accessToken?username=alice&password=first-Secret-pw").status == .ok)
                #expect(try await client.postForm("/user/accessToken", [("username", "alice"), ("password", "wrong-Secret-pw")]).status == .unauthorized)
                #expect(try await client.signed(.get, "/user/alice", session: first, ts: ts).status == .ok)
                var forged = first
                forged.macKey = "forged-mac-key-forged-mac-key-00"
                #expect(try await client.signed(.get, "/user/alice", session: forged, ts: ts).status == .unauthorized)
                let refreshed = try #require(MACSession(try await client.postForm("/user/refreshToken", [("refresh_token", first.refreshToken)])))
                #expect(try await client.post("/user/forgotPassword", ["username": "alice"]).status == .ok)
                let temporary = try await PasswordFlowTests.temporaryPassword(in: directory).password
                let second = try #require(
                    MACSession(
                        try await client.postForm(
                            "/user/accessToken", [("username", "alice"), ("password", temporary), ("new_password", "second-Secret-pw")])))
                let reset = try await client.signed(
                    .post, "/user/resetPassword", session: second, ts: ts,
                    json: ["old": ["password": "second-Secret-pw"], "new": ["password": "third-Secret-pw"]])
                #expect(reset.status == .ok)
                #expect(try await client.signed(.get, "/user/logout", session: refreshed, ts: ts).status == .ok)
                return [first, refreshed, second, forged].map { [$0.accessToken, $0.macKey, $0.refreshToken] }.joined() + [temporary]
            }
            secrets += sessions
            let lines = store.all
            #expect(lines.contains { $0.message == "User logged in" && $0.metadata["sm.user"] == "alice" })
            let outbox = try #require(lines.first { $0.metadata["sm.mail.outbox_id"] != nil })
            #expect(outbox.metadata["sm.mail.to"] == "alice@example.com")
            #expect(lines.count > 20)
            for line in lines {
                for secret in secrets {
                    #expect(!line.fullText.contains(secret), "a secret leaked into: \(line.message)")
                }
            }
        }
    }
}

@Suite("Secrets at rest")
struct SecretsAtRestTests {
    @Test("the database files hold no access token, refresh token, MAC key or temporary password in clear", .sqliteFiles)
    func noPlaintextSecretsOnDisk() async throws {
        try await TestServer.withDataDirectory { directory in
            let configuration = TestServer.configuration(dataDirectory: directory)
            let secrets = try await TestServer.run(configuration: configuration) { client in
                #expect(try await client.post("/user", ["username": "alice", "password": "pw-1", "email": "alice@example.com"]).status == .created)
                let session = try await client.login([("username", "alice"), ("password", "pw-1")])
                let refreshed = try #require(MACSession(try await client.postForm("/user/refreshToken", [("refresh_token", session.refreshToken)])))
                #expect(try await client.post("/user/forgotPassword", ["username": "alice"]).status == .ok)
                return [session.accessToken, session.macKey, refreshed.accessToken, refreshed.macKey, refreshed.refreshToken]
            }
            let temporary = try await PasswordFlowTests.temporaryPassword(in: directory).password
            var database = Data()
            for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file.hasPrefix("development.sqlite") {
                database.append(try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(file)))
            }
            #expect(database.count > 0)
            // The outbox holds the mail body, by design: the temporary password is there, and only there.
            #expect(database.range(of: Data(temporary.utf8)) != nil)
            for secret in secrets {
                #expect(database.range(of: Data(secret.utf8)) == nil)
            }
            #expect(database.range(of: Data("pw-1".utf8)) == nil)
        }
    }
}
