import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("Users: forgotPassword, temporary password, resetPassword, outbox")
struct PasswordFlowTests {
    /// The temporary password of the last outbox message of the development environment.
    static func temporaryPassword(in directory: String) async throws -> (recipient: String, password: String) {
        let configuration = TestServer.configuration(dataDirectory: directory)
        let entries = try await Outbox.read(storage: try TestServer.storage(configuration), environment: .development)
        let last = try #require(entries.last)
        let line = try #require(last.message.body.split(separator: "\n").first { $0.hasPrefix("Temporary password: ") })
        return (last.message.to, String(line.dropFirst("Temporary password: ".count)))
    }

    @Test("forgot → temporary login without new_password fails with the exact text → with it succeeds → old password fails")
    func forgotAndTemporaryLogin() async throws {
        try await TestServer.withDataDirectory { directory in
            let clock = ManualClock()
            try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory), clock: clock) { client in
                #expect(try await client.post("/user", ["username": "alice", "password": "old-pw", "email": "alice@example.com"]).status == .created)
                // The iOS and Java SDKs send {"username": …}.
                let forgot = try await client.post("/user/forgotPassword", ["username": "alice"])
                #expect(forgot.status == .ok)
                #expect(forgot.object == [:])
                #expect(!forgot.text.contains("Temporary"))
                let (recipient, temporary) = try await Self.temporaryPassword(in: directory)
                #expect(recipient == "alice@example.com")
                // The old password keeps working until the reset.
                _ = try await client.login([("username", "alice"), ("password", "old-pw")])
                let withoutNew = try await client.postForm("/user/accessToken", [("username", "alice"), ("password", temporary)])
                #expect(withoutNew.status == .unauthorized)
                #expect(withoutNew.object == ["error": "Temporary password reset required.", "error_description": "Temporary password reset required."])
                let withNew = try await client.postForm(
                    "/user/accessToken", [("username", "alice"), ("password", temporary), ("new_password", "new-pw")])
                #expect(withNew.status == .ok)
                #expect(MACSession(withNew) != nil)
                #expect(try await client.postForm("/user/accessToken", [("username", "alice"), ("password", "old-pw")]).status == .unauthorized)
                #expect(try await client.postForm("/user/accessToken", [("username", "alice"), ("password", temporary)]).status == .unauthorized)
                _ = try await client.login([("username", "alice"), ("password", "new-pw")])
            }
        }
    }

    @Test("a temporary password expires after 24 hours; unknown users and users without e-mail get 401")
    func expiryAndFailures() async throws {
        try await TestServer.withDataDirectory { directory in
            let clock = ManualClock()
            try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory), clock: clock) { client in
                #expect(try await client.post("/user", ["username": "alice", "password": "old-pw", "email": "alice@example.com"]).status == .created)
                #expect(try await client.post("/user", ["username": "nomail", "password": "pw"]).status == .created)
                #expect(try await client.post("/user/forgotPassword", ["username": "alice"]).status == .ok)
                let (_, temporary) = try await Self.temporaryPassword(in: directory)
                clock.advance(by: 24 * 3600 * 1000 + 1)
                let late = try await client.postForm("/user/accessToken", [("username", "alice"), ("password", temporary), ("new_password", "x")])
                #expect(late.status == .unauthorized)
                #expect(late.error == "access_denied")
                #expect(try await client.post("/user/forgotPassword", ["username": "ghost"]).status == .unauthorized)
                #expect(try await client.post("/user/forgotPassword", ["username": "nomail"]).status == .unauthorized)
            }
        }
    }

    @Test("resetPassword: wrong old password and not logged in fail; the right one changes the password")
    func resetPassword() async throws {
        let clock = ManualClock()
        try await TestServer.run(clock: clock) { client in
            #expect(try await client.post("/user", ["username": "alice", "password": "old-pw"]).status == .created)
            let session = try await client.login([("username", "alice"), ("password", "old-pw")])
            let ts = clock.nowMilliseconds() / 1000
            let body: JSONValue = ["old": ["password": "wrong"], "new": ["password": "new-pw"]]
            let wrong = try await client.signed(.post, "/user/resetPassword", session: session, ts: ts, json: body)
            #expect(wrong.status == .unauthorized)
            #expect(try await client.post("/user/resetPassword", ["old": ["password": "old-pw"], "new": ["password": "new-pw"]]).status == .unauthorized)
            let right = try await client.signed(
                .post, "/user/resetPassword", session: session, ts: ts, json: ["old": ["password": "old-pw"], "new": ["password": "new-pw"]])
            #expect(right.status == .ok)
            #expect(right.object == [:])
            #expect(try await client.postForm("/user/accessToken", [("username", "alice"), ("password", "old-pw")]).status == .unauthorized)
            _ = try await client.login([("username", "alice"), ("password", "new-pw")])
        }
    }
}

@Suite("Users: the e-mail field of forgotPassword")
struct EmailFieldTests {
    @Test("X-StackMob-FieldTypes from a private-key request marks the e-mail field; a configured email_field wins")
    func fieldTypesMarksEmail() async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.development.userSchemas = [
                UserSchema(), UserSchema(name: "member", loginField: "name", passwordField: "pass", emailField: "mail"),
            ]
            try await TestServer.run(configuration: configuration) { client in
                let created = try await client.oauth1(
                    .post, "/user", shape: .java, json: ["username": "jo", "password": "pw", "contact": "jo@example.com", "email": "other@example.com"],
                    headers: ["X-StackMob-FieldTypes": "location=geopoint&contact=forgotpassword"])
                #expect(created.status == .created)
                #expect(try await client.post("/user/forgotPassword", ["username": "jo"]).status == .ok)
                #expect(try await PasswordFlowTests.temporaryPassword(in: directory).recipient == "jo@example.com")
                #expect(
                    try await client.oauth1(
                        .post, "/member", shape: .java, json: ["name": "zoe", "pass": "pw", "mail": "zoe@example.com", "contact": "no@example.com"],
                        headers: ["X-StackMob-FieldTypes": "contact=forgotpassword"]
                    ).status == .created)
                // The JS SDK sends {<loginField>: id}.
                #expect(try await client.post("/member/forgotPassword", ["name": "zoe"]).status == .ok)
                #expect(try await PasswordFlowTests.temporaryPassword(in: directory).recipient == "zoe@example.com")
            }
        }
    }

    @Test("the forgotpassword hint of an anonymous or logged-in caller changes nobody's mail; the field is stored as a string")
    func callersHintIgnored() async throws {
        try await TestServer.withDataDirectory { directory in
            try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory)) { client in
                let hint = ["X-StackMob-FieldTypes": "nickname=forgotpassword"]
                #expect(
                    try await client.post("/user", ["username": "carol", "password": "pw", "email": "carol@example.com", "nickname": "caz"]).status
                        == .created)
                // A stranger's sign-up names a field of theirs as where temporary passwords go: answered as any sign-up.
                let mallory = try await client.post("/user", ["username": "mallory", "password": "pw", "nickname": "mallory@evil.example"], headers: hint)
                #expect(mallory.status == .created, "\(mallory.text)")
                #expect(mallory.object?["nickname"] == "mallory@evil.example")
                // Logged in, on their own object.
                let session = try await client.login([("username", "mallory"), ("password", "pw")])
                let update = try await client.signed(
                    .put, "/user/mallory", session: session, ts: Int64(Date().timeIntervalSince1970), json: ["nickname": "m@evil.example"],
                    headers: hint)
                #expect(update.status == .ok, "\(update.text)")
                #expect(try await client.post("/user/forgotPassword", ["username": "carol"]).status == .ok)
                #expect(try await PasswordFlowTests.temporaryPassword(in: directory).recipient == "carol@example.com")
                #expect(try await client.post("/user/forgotPassword", ["username": "mallory"]).status == .unauthorized, "mallory has no email")
                // Nothing was marked: the first marking, a private-key request's, still counts.
                let marked = try await client.oauth1(
                    .put, "/user/carol", shape: .java, json: ["nickname": "carol.nick@example.com"], headers: hint)
                #expect(marked.status == .ok, "\(marked.text)")
                #expect(try await client.post("/user/forgotPassword", ["username": "carol"]).status == .ok)
                #expect(try await PasswordFlowTests.temporaryPassword(in: directory).recipient == "carol.nick@example.com")
            }
        }
    }
}
