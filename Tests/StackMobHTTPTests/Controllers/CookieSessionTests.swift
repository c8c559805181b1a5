import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("Legacy OAuth 1.0 cookie session (§8.9)", .tags(.timing))
struct CookieSessionTests {
    /// The Java SDK's rule: the first `;`-part starts with `session_`, its value has no `=`
    /// and no `:` after login, a `:` after logout; no `Expires`.
    static func cookie(_ response: APIResponse) throws -> (name: String, value: String) {
        let header = try #require(response.header("Set-Cookie"))
        #expect(!header.contains("Expires"))
        let first = try #require(header.split(separator: ";").first)
        let equals = try #require(first.firstIndex(of: "="))
        let name = String(first[..<equals])
        #expect(name.hasPrefix("session_"))
        return (name, String(first[first.index(after: equals)...]))
    }

    @Test("login sets a session cookie and returns the user; signed creates are owned by that user; logout answers the logged-out cookie")
    func loginAndLogout() async throws {
        let (logger, store) = CapturingLogHandler.logger()
        let cookieValue = try await TestServer.run(logger: logger) { client in
            #expect(try await client.post("/user", ["username": "jo", "password": "pw-Secret-1", "email": "jo@example.com"]).status == .created)
            let login = try await client.oauth1(.get, "/user/login?username=jo&password=pw-Secret-1", shape: .java, endpoint: .init(scheme: "https"))
            #expect(login.status == .ok, "\(login.text)")
            #expect(login.object?["username"] == "jo")
            #expect(login.object?["email"] == "jo@example.com")
            #expect(login.object?["password"] == nil)
            #expect(!login.text.contains("pw-Secret-1"))
            let (name, value) = try Self.cookie(login)
            #expect(!value.contains("=") && !value.contains(":") && value.count >= 32)

            // A signed request carrying the cookie creates objects owned by the logged-in user.
            let owned = try await client.oauth1(.post, "/todo", shape: .java, json: ["todo_id": "a"], headers: ["Cookie": "\(name)=\(value)"])
            #expect(owned.status == .created)
            #expect(owned.object?["sm_owner"] == "user/jo")
            let unowned = try await client.oauth1(.post, "/todo", shape: .java, json: ["todo_id": "b"])
            #expect(unowned.object?["sm_owner"] == nil)
            // The cookie alone, without a signature, grants nothing.
            #expect(try await client.withoutKey.get("/todo", headers: ["Cookie": "\(name)=\(value)"]).status == .unauthorized)

            let logout = try await client.oauth1(.get, "/user/logout", shape: .java, headers: ["Cookie": "\(name)=\(value)"])
            #expect(logout.status == .ok)
            #expect(logout.object == [:])
            let (loggedOutName, loggedOutValue) = try Self.cookie(logout)
            #expect(loggedOutName == name)
            #expect(loggedOutValue.contains(":"))
            // The session is over: the cookie no longer sets the owner.
            let after = try await client.oauth1(.post, "/todo", shape: .java, json: ["todo_id": "c"], headers: ["Cookie": "\(name)=\(value)"])
            #expect(after.object?["sm_owner"] == nil)
            // Logout without a cookie: 200 {} and no cookie (D20).
            let plain = try await client.oauth1(.get, "/user/logout", shape: .java)
            #expect(plain.status == .ok)
            #expect(plain.header("Set-Cookie") == nil)
            return value
        }
        #expect(store.all.contains { $0.message == "User logged in with a cookie session" && $0.metadata["sm.user"] == "jo" })
        for line in store.all {
            #expect(!line.fullText.contains("pw-Secret-1") && !line.fullText.contains(cookieValue), "secret in: \(line.message)")
        }
    }

    @Test("wrong password, unknown user, missing fields → 401 Invalid username or password; schema field names accepted")
    func failuresAndFieldNames() async throws {
        try await TestServer.run(configure: {
            $0.development.userSchemas = [UserSchema(name: "account", loginField: "email", passwordField: "secret")]
        }) { client in
            #expect(try await client.post("/account", ["email": "a@b.c", "secret": "pw-Secret-2"]).status == .created)
            for target in ["/account/login?username=a%40b.c&password=nope", "/account/login?username=zz&password=pw-Secret-2", "/account/login?username=a%40b.c"] {
                let response = try await client.oauth1(.get, target, shape: .iOS)
                #expect(response.status == .unauthorized)
                #expect(response.object == ["error": "Invalid username or password"])
                #expect(response.header("Set-Cookie") == nil)
            }
            let own = try await client.oauth1(.get, "/account/login?email=a%40b.c&secret=pw-Secret-2", shape: .iOS)
            #expect(own.status == .ok, "\(own.text)")
            #expect(own.object?["email"] == "a@b.c")
            #expect(own.object?["secret"] == nil)
            _ = try Self.cookie(own)
        }
    }

    /// Over HTTP only timing tells whether a dummy hash was verified (no seam counts hashes), so
    /// the hash is made slow: at 400,000 rounds a verification takes tens of milliseconds, and a
    /// refusal without one about one. Medians of interleaved attempts, with a generous factor,
    /// for a loaded machine.
    @Test("an unknown login is refused as late as a known one with a wrong password: a dummy hash is verified")
    func unknownLoginTakesAsLong() async throws {
        try await TestServer.run(configure: { $0.passwordRounds = 400_000 }) { client in
            #expect(try await client.post("/user", ["username": "jo", "password": "pw-Secret-1"]).status == .created)
            var known: [Duration] = []
            var unknown: [Duration] = []
            for _ in 0..<5 {
                let start = ContinuousClock.now
                let wrong = try await client.oauth1(.get, "/user/login?username=jo&password=wrong", shape: .java)
                known.append(ContinuousClock.now - start)
                let middle = ContinuousClock.now
                let nobody = try await client.oauth1(.get, "/user/login?username=nobody&password=wrong", shape: .java)
                unknown.append(ContinuousClock.now - middle)
                #expect(wrong.status == .unauthorized && nobody.status == .unauthorized)
            }
            let knownMedian = known.sorted()[2]
            let unknownMedian = unknown.sorted()[2]
            #expect(knownMedian > .milliseconds(5), "the hash is too fast to tell: \(known)")
            #expect(unknownMedian >= knownMedian / 2, "unknown \(unknown), known \(known)")
        }
    }

    @Test("the cookie session's user may resetPassword and read loggedInUser under an OAuth 1.0 signature; without the cookie: 401")
    func resetPasswordAndLoggedInUser() async throws {
        try await TestServer.run { client in
            #expect(try await client.post("/user", ["username": "jo", "password": "pw-Secret-1", "email": "jo@example.com"]).status == .created)
            let login = try await client.oauth1(.get, "/user/login?username=jo&password=pw-Secret-1", shape: .java, endpoint: .init(scheme: "https"))
            let (name, value) = try Self.cookie(login)
            let cookie = ["Cookie": "\(name)=\(value)"]
            let body: JSONValue = ["old": ["password": "pw-Secret-1"], "new": ["password": "pw-Secret-2"]]

            let me = try await client.oauth1(.get, "/user/loggedInUser", shape: .java, headers: cookie)
            #expect(me.status == .ok, "\(me.text)")
            #expect(me.object?["username"] == "jo")
            #expect(me.object?["password"] == nil)
            // Signed, but no cookie: nobody is logged in.
            #expect(try await client.oauth1(.get, "/user/loggedInUser", shape: .java).status == .unauthorized)
            let anonymous = try await client.oauth1(.post, "/user/resetPassword", shape: .java, json: body)
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.error?.hasPrefix("Not logged in") == true)

            let wrongOld = try await client.oauth1(
                .post, "/user/resetPassword", shape: .java, json: ["old": ["password": "nope"], "new": ["password": "x"]], headers: cookie)
            #expect(wrongOld.status == .unauthorized)
            let reset = try await client.oauth1(.post, "/user/resetPassword", shape: .java, json: body, headers: cookie)
            #expect(reset.status == .ok, "\(reset.text)")
            #expect(reset.object == [:])
            #expect(try await client.oauth1(.get, "/user/login?username=jo&password=pw-Secret-1", shape: .java).status == .unauthorized)
            #expect(try await client.oauth1(.get, "/user/login?username=jo&password=pw-Secret-2", shape: .java).status == .ok)
        }
    }

    @Test("only a hash of the cookie is stored")
    func storedAsHash() async throws {
        try await TestServer.withDataDirectory { directory in
            let value = try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory)) { client in
                #expect(try await client.post("/user", ["username": "jo", "password": "pw-Secret-1"]).status == .created)
                let login = try await client.oauth1(.get, "/user/login?username=jo&password=pw-Secret-1", shape: .java)
                return try Self.cookie(login).value
            }
            for file in try FileManager.default.contentsOfDirectory(atPath: directory) {
                let data = try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(file))
                #expect(data.range(of: Data(value.utf8)) == nil, "cookie in clear in \(file)")
            }
            #expect(SessionSecrets.hash(value).count == 64)
        }
    }
}
