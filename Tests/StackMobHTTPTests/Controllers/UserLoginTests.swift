import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("Users: accessToken, signed requests, refresh, logout, loggedInUser")
struct UserLoginTests {
    static func signUp(_ client: StackMobClient, _ username: String = "alice", password: String = "secret-1") async throws {
        let response = try await client.post("/user", ["username": .string(username), "password": .string(password), "email": "a@example.com"])
        #expect(response.status == .created)
    }

    @Test("login answers the token response of §8.2 exactly")
    func tokenResponse() async throws {
        try await TestServer.run { client in
            try await Self.signUp(client)
            let response = try await client.postForm(
                "/user/accessToken", [("username", "alice"), ("password", "secret-1"), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")])
            #expect(response.status == .ok)
            let body = try #require(response.object)
            #expect(body["access_token"]?.stringValue?.count == 32)
            #expect(body["mac_key"]?.stringValue?.count == 32)
            #expect(body["refresh_token"]?.stringValue?.count == 32)
            #expect(body["mac_algorithm"] == "hmac-sha-1")
            #expect(body["token_type"] == "mac")
            #expect(body["expires_in"] == .integer(3600))
            let user = try #require(body["stackmob"]?.objectValue?["user"]?.objectValue)
            #expect(user["username"] == "alice")
            #expect(user["email"] == "a@example.com")
            #expect(user["password"] == nil)
            #expect(!response.text.contains("secret-1"))
        }
    }

    @Test("wrong password, unknown user, missing fields → 401 access_denied; JSON and GET variants log in")
    func badCredentialsAndVariants() async throws {
        try await TestServer.run { client in
            try await Self.signUp(client)
            for fields in [[("username", "alice"), ("password", "nope")], [("username", "bob"), ("password", "secret-1")], [("username", "alice")]] {
                let response = try await client.postForm("/user/accessToken", fields)
                #expect(response.status == .unauthorized)
                #expect(response.error == "access_denied")
                #expect(response.object?["error_description"] == "Invalid username or password")
            }
            let json = try await client.post("/user/accessToken", ["username": "alice", "password": "secret-1"])
            #expect(json.status == .ok)
            #expect(MACSession(json) != nil)
            let get = try await client.get("/user/accessToken?username=alice&password=secret-1")
            #expect(get.status == .ok)
            #expect(MACSession(get) != nil)
            // Java-style form: keys and values percent-encoded, spaces as %20 or +.
            try await Self.signUp(client, "jo smith", password: "p w+d")
            let java = try await client.request(
                .post, "/user/accessToken", rawBody: "user%6Eame=jo%20smith&password=p+w%2Bd&token_type=mac",
                headers: ["Content-Type": "application/x-www-form-urlencoded"])
            #expect(java.status == .ok)
            #expect(java.object?["stackmob"]?.objectValue?["user"]?.objectValue?["username"] == "jo smith")
        }
    }

    @Test("every SDK's signing style verifies, on reads with queries and writes; sm_owner is the user")
    func sdkStyles() async throws {
        let clock = ManualClock()
        try await TestServer.run(clock: clock) { client in
            try await Self.signUp(client)
            let session = try await client.login([("username", "alice"), ("password", "secret-1")])
            let ts = clock.nowMilliseconds() / 1000
            let created = try await client.signed(.post, "/todo", session: session, ts: ts, json: ["todo_id": "t1", "title": "a b/c"])
            #expect(created.status == .created)
            #expect(created.object?["sm_owner"] == "user/alice")
            let js = "/todo?title=a%20b%2Fc"
            let encoded = "/todo?t%69tle=a%20b%2Fc"
            for (target, style) in [(js, MACSigner.Style.js), (encoded, .java), (encoded, .iOS), ("/todo/t1", .iOS)] {
                let response = try await client.signed(.get, target, session: session, style: style, ts: ts)
                #expect(response.status == .ok, "\(style) \(target): \(response.text)")
            }
            // Behind a TLS proxy: the client signed port 8443, which the Host header does not show.
            let proxied = try await client.signed(
                .get, "/todo/t1", session: session, ts: ts, port: 8443, headers: ["X-Forwarded-Proto": "https", "X-Forwarded-Port": "8443"])
            #expect(proxied.status == .ok)
            // Signed over the wire verb, overridden to HEAD: either verb verifies (§2.9, D19;
            // MethodOverrideSigningTests covers both verbs and OAuth 1.0).
            let override = try await client.signed(
                .get, "/todo/t1", session: session, ts: ts, headers: ["X-HTTP-Method-Override": "HEAD"])
            #expect(override.status == .ok)
            // A client-supplied sm_owner is ignored without the private key.
            let spoofed = try await client.signed(.post, "/todo", session: session, ts: ts, json: ["todo_id": "t2", "sm_owner": "user/mallory"])
            #expect(spoofed.object?["sm_owner"] == "user/alice")
        }
    }

    @Test("a replayed nonce, a stale timestamp, a wrong key, an expired and a revoked token each get 401")
    func refusals() async throws {
        let clock = ManualClock()
        try await TestServer.run(clock: clock) { client in
            try await Self.signUp(client)
            let session = try await client.login([("username", "alice"), ("password", "secret-1")])
            let ts = clock.nowMilliseconds() / 1000
            #expect(try await client.signed(.get, "/user/alice", session: session, ts: ts, nonce: "n7").status == .ok)
            let replay = try await client.signed(.get, "/user/alice", session: session, ts: ts, nonce: "n7")
            #expect(replay.status == .unauthorized)
            #expect(replay.error?.contains("replayed") == true)
            let stale = try await client.signed(.get, "/user/alice", session: session, ts: ts - 601)
            #expect(stale.status == .unauthorized)
            var wrongKey = session
            wrongKey.macKey = String(repeating: "0", count: 32)
            #expect(try await client.signed(.get, "/user/alice", session: wrongKey, ts: ts).status == .unauthorized)
            var unknown = session
            unknown.accessToken = String(repeating: "f", count: 32)
            #expect(try await client.signed(.get, "/user/alice", session: unknown, ts: ts).status == .unauthorized)
            #expect(try await client.request(.get, "/user/alice", headers: ["Authorization": "MAC garbage"]).status == .unauthorized)
            clock.advance(by: 3_601_000)
            let expired = try await client.signed(.get, "/user/alice", session: session, ts: clock.nowMilliseconds() / 1000)
            #expect(expired.status == .unauthorized)
            #expect(expired.error?.contains("expired") == true)
            let fresh = try await client.login([("username", "alice"), ("password", "secret-1")])
            let now = clock.nowMilliseconds() / 1000
            #expect(try await client.signed(.get, "/user/logout", session: fresh, ts: now).status == .ok)
            #expect(try await client.signed(.get, "/user/alice", session: fresh, ts: now).status == .unauthorized)
        }
    }

    @Test("a forged request with a session's token and a genuine request's nonce neither spends the nonce nor passes")
    func forgeryKeepsTheNonce() async throws {
        let clock = ManualClock()
        try await TestServer.run(clock: clock) { client in
            try await Self.signUp(client)
            let session = try await client.login([("username", "alice"), ("password", "secret-1")])
            let ts = clock.nowMilliseconds() / 1000
            var forger = session
            forger.macKey = String(repeating: "0", count: 32)
            // Before and after the genuine request: the storage may record a request before its
            // signature is checked (`SignedSessionStore`), so neither may take the genuine one's place.
            for _ in 0..<2 {
                let forged = try await client.signed(.get, "/user/alice", session: forger, ts: ts, nonce: "n9")
                #expect(forged.status == .unauthorized)
                #expect(forged.error?.contains("signature") == true, "\(forged.text)")
            }
            #expect(try await client.signed(.get, "/user/alice", session: session, ts: ts, nonce: "n9").status == .ok)
            let forged = try await client.signed(.get, "/user/alice", session: forger, ts: ts, nonce: "n9")
            #expect(forged.error?.contains("signature") == true, "\(forged.text)")
            let replay = try await client.signed(.get, "/user/alice", session: session, ts: ts, nonce: "n9")
            #expect(replay.status == .unauthorized)
            #expect(replay.error?.contains("replayed") == true, "\(replay.text)")
        }
    }

    @Test("expired_token_as_anonymous turns an expired token into an anonymous request (D7)")
    func expiredAsAnonymous() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: { $0.development.expiredTokenAsAnonymous = true }, clock: clock) { client in
            try await Self.signUp(client)
            let session = try await client.login([("username", "alice"), ("password", "secret-1")])
            clock.advance(by: 3_601_000)
            let ts = clock.nowMilliseconds() / 1000
            let created = try await client.signed(.post, "/todo", session: session, ts: ts, json: ["todo_id": "t1"])
            #expect(created.status == .created)
            #expect(created.object?["sm_owner"] == nil)
            #expect(try await client.signed(.get, "/user/loggedInUser", session: session, ts: ts).status == .unauthorized)
        }
    }

    @Test("sign up → login → signed read → refresh → old refresh token fails → logout → token fails")
    func wholeFlow() async throws {
        let clock = ManualClock()
        try await TestServer.run(clock: clock) { client in
            try await Self.signUp(client)
            let session = try await client.login([("username", "alice"), ("password", "secret-1")])
            let ts = clock.nowMilliseconds() / 1000
            let me = try await client.signed(.get, "/user/loggedInUser", session: session, ts: ts)
            #expect(me.status == .ok)
            #expect(me.object?["username"] == "alice")
            #expect(me.object?["password"] == nil)
            #expect(try await client.get("/user/loggedInUser").status == .unauthorized)
            // iOS sends no grant_type and says hmac-sha-1; JS says hmac-sha1 (D9). Java signs it: ignored.
            let refreshed = try await client.postForm(
                "/user/refreshToken", [("refresh_token", session.refreshToken), ("token_type", "mac"), ("mac_algorithm", "hmac-sha1")],
                headers: ["Authorization": #"MAC id="stale",ts="1",nonce="n1",mac="x""#])
            #expect(refreshed.status == .ok)
            #expect(refreshed.object?["mac_algorithm"] == "hmac-sha-1")
            #expect(refreshed.object?["stackmob"]?.objectValue?["user"]?.objectValue?["username"] == "alice")
            let next = try #require(MACSession(refreshed))
            #expect(next.refreshToken != session.refreshToken)
            let reused = try await client.postForm("/user/refreshToken", [("grant_type", "refresh_token"), ("refresh_token", session.refreshToken)])
            #expect(reused.status == .unauthorized)
            #expect(reused.error == "invalid_grant")
            #expect(try await client.signed(.get, "/user/alice", session: next, ts: ts).status == .ok)
            let again = try await client.postForm("/user/refreshToken", [("grant_type", "refresh_token"), ("refresh_token", next.refreshToken)])
            let third = try #require(MACSession(again))
            let logout = try await client.signed(.get, "/user/logout", session: third, ts: ts)
            #expect(logout.status == .ok)
            #expect(logout.object == [:])
            #expect(try await client.signed(.get, "/user/alice", session: third, ts: ts).status == .unauthorized)
            #expect(try await client.postForm("/user/refreshToken", [("refresh_token", third.refreshToken)]).status == .unauthorized)
            // Logout is idempotent (D20), also unsigned.
            #expect(try await client.signed(.get, "/user/logout", session: third, ts: ts).status == .ok)
            #expect(try await client.get("/user/logout").status == .ok)
        }
    }

    @Test("reserved names are ordinary ids under other schemas")
    func otherSchemas() async throws {
        try await TestServer.run { client in
            #expect(try await client.post("/todo", ["todo_id": "logout", "n": 1]).status == .created)
            let read = try await client.get("/todo/logout")
            #expect(read.status == .ok)
            #expect(read.object?["todo_id"] == "logout")
            #expect(try await client.delete("/todo/logout").status == .ok)
            #expect(try await client.postForm("/todo/accessToken", [("username", "a")]).status == .notFound)
        }
    }

    @Test("single_session: a new login ends the other sessions (D24)")
    func singleSession() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: { $0.development.singleSession = true }, clock: clock) { client in
            try await Self.signUp(client)
            let first = try await client.login([("username", "alice"), ("password", "secret-1")])
            let second = try await client.login([("username", "alice"), ("password", "secret-1")])
            let ts = clock.nowMilliseconds() / 1000
            #expect(try await client.signed(.get, "/user/alice", session: first, ts: ts).status == .unauthorized)
            #expect(try await client.signed(.get, "/user/alice", session: second, ts: ts).status == .ok)
        }
    }

    @Test("several user schemas, each with its own login and password fields")
    func severalUserSchemas() async throws {
        let clock = ManualClock()
        try await TestServer.run(
            configure: {
                $0.development.userSchemas = [UserSchema(), UserSchema(name: "member", loginField: "name", passwordField: "pass", emailField: "mail")]
            }, clock: clock
        ) { client in
            #expect(try await client.post("/member", ["name": "zoe", "pass": "pw-zoe"]).status == .created)
            let session = try await client.login([("name", "zoe"), ("pass", "pw-zoe")], schema: "member")
            let ts = clock.nowMilliseconds() / 1000
            let me = try await client.signed(.get, "/member/loggedInUser", session: session, ts: ts)
            #expect(me.object?["name"] == "zoe")
            #expect(try await client.signed(.get, "/user/loggedInUser", session: session, ts: ts).status == .unauthorized)
            let created = try await client.signed(.post, "/todo", session: session, ts: ts, json: ["todo_id": "x"])
            #expect(created.object?["sm_owner"] == "member/zoe")
        }
    }
}

@Suite("Users: refresh token rotation under concurrency")
struct RefreshRaceTests {
    @Test("two concurrent refreshes with one refresh token: exactly one succeeds")
    func concurrentRefresh() async throws {
        try await TestServer.run { client in
            try await UserLoginTests.signUp(client)
            for _ in 0..<5 {
                let session = try await client.login([("username", "alice"), ("password", "secret-1")])
                async let first = client.postForm("/user/refreshToken", [("refresh_token", session.refreshToken)])
                async let second = client.postForm("/user/refreshToken", [("refresh_token", session.refreshToken)])
                let statuses = try await [first.status.code, second.status.code].sorted()
                #expect(statuses == [200, 401])
            }
        }
    }
}
