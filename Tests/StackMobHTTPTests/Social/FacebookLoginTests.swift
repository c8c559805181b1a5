import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("Social: Facebook (PROTOCOL §9) against a local Graph API")
struct FacebookLoginTests {
    @Test("facebookAccessTokenWithCreate creates and links a user (JS, iOS, Java forms); facebookAccessToken then logs them in")
    func loginWithCreate() async throws {
        let stub = SocialProviderStub()
        await stub.addFacebookUser(token: "fb-token-ann", id: "1001", name: "Ann")
        await stub.addFacebookUser(token: "fb-token-ben", id: "1002", name: "Ben")
        await stub.addFacebookUser(token: "fb-token-cy", id: "1003", name: "Cy")
        try await SocialProviderStub.run(stub) { client, clock in
            // Not linked yet: the plain token login refuses (400), and creates nobody.
            let refused = try await client.postForm("/user/facebookAccessToken", [("fb_at", "fb-token-ann"), ("token_type", "mac")])
            #expect(refused.status == .badRequest)
            #expect(refused.error == "No user is linked to this Facebook account")
            // JS: the model's login field; iOS: `username` and mac_algorithm; Java: encoded keys.
            let js = try await client.postForm(
                "/user/facebookAccessTokenWithCreate", [("fb_at", "fb-token-ann"), ("token_type", "mac"), ("username", "ann")])
            _ = try await SocialChecks.expectTokenResponse(js, username: "ann", client: client, clock: clock)
            let ios = try await client.postForm(
                "/user/facebookAccessTokenWithCreate",
                [("fb_at", "fb-token-ben"), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1"), ("username", "ben")])
            _ = try await SocialChecks.expectTokenResponse(ios, username: "ben", client: client, clock: clock)
            // No name given: the Facebook user id is the username (as the iOS guide says).
            let java = try await client.request(
                .post, "/user/facebookAccessTokenWithCreate", rawBody: "fb%5Fat=fb-token-cy&token%5Ftype=mac&mac%5Falgorithm=hmac-sha-1",
                headers: ["Content-Type": "application/x-www-form-urlencoded"])
            _ = try await SocialChecks.expectTokenResponse(java, username: "1003", client: client, clock: clock)
            // Linked now: both endpoints log the same user in, creating nobody else.
            let again = try await client.postForm("/user/facebookAccessToken", [("fb_at", "fb-token-ann"), ("token_type", "mac")])
            _ = try await SocialChecks.expectTokenResponse(again, username: "ann", client: client, clock: clock)
            let withCreate = try await client.postForm(
                "/user/facebookAccessTokenWithCreate", [("fb_at", "fb-token-ann"), ("token_type", "mac"), ("username", "other")])
            _ = try await SocialChecks.expectTokenResponse(withCreate, username: "ann", client: client, clock: clock)
            // The Java SDK signs token requests with whatever token it still holds: ignored, as on accessToken.
            let staleSignature = try await client.postForm(
                "/user/facebookAccessToken", [("fb_at", "fb-token-ann"), ("token_type", "mac")],
                headers: ["Authorization": #"MAC id="expired-token",ts="1",nonce="n",mac="bm9uZQ==""#])
            _ = try await SocialChecks.expectTokenResponse(staleSignature, username: "ann", client: client, clock: clock)
            #expect(try await client.get("/user/other").status == .notFound)
            SocialChecks.expectNoSecrets(again, ["fb-token-ann", SocialProviderStub.facebookAppSecret])
            // The Graph API was asked who owns the token, with the app token, and /me with the proof.
            let debug = try #require(await stub.requests(to: "/debug_token").first)
            #expect(debug.method == "GET")
            #expect(debug.parameters["input_token"] == "fb-token-ann")
            #expect(debug.parameters["access_token"] == "fb-app-1|fb-app-secret-1")
            let me = try #require(await stub.requests(to: "/me").first)
            #expect(me.parameters["access_token"] == "fb-token-ann")
            #expect(me.parameters["appsecret_proof"]?.count == 64)
        }
    }

    @Test("createUserWithFacebook: JS JSON with model attributes, Java JSON, GET and form variants answer 201 and the user")
    func create() async throws {
        let stub = SocialProviderStub()
        for n in 1...4 { await stub.addFacebookUser(token: "fb-token-\(n)", id: "20\(n)", name: "User \(n)") }
        try await SocialProviderStub.run(stub) { client, clock in
            let js = try await client.post(
                "/user/createUserWithFacebook", ["fb_at": "fb-token-1", "username": "jo", "email": "jo@example.com", "token_type": "mac"])
            #expect(js.status == .created, "\(js.text)")
            #expect(js.object?["username"] == "jo")
            #expect(js.object?["email"] == "jo@example.com")
            #expect(js.object?["token_type"] == nil)
            #expect(js.object?["fb_at"] == nil)
            SocialChecks.expectNoSecrets(js, ["fb-token-1"])
            let java = try await client.post("/user/createUserWithFacebook", ["fb_at": "fb-token-2", "username": "kim"])
            #expect(java.status == .created)
            #expect(java.object?["username"] == "kim")
            let get = try await client.get("/user/createUserWithFacebook?fb_at=fb-token-3&username=lee")
            #expect(get.status == .created)
            let form = try await client.postForm("/user/createUserWithFacebook", [("fb_at", "fb-token-4"), ("username", "max")])
            #expect(form.status == .created)
            // Each created user logs in with Facebook from now on.
            let login = try await client.postForm("/user/facebookAccessToken", [("fb_at", "fb-token-3"), ("token_type", "mac")])
            _ = try await SocialChecks.expectTokenResponse(login, username: "lee", client: client, clock: clock)
            // The account is taken: a second create is refused and creates nobody.
            let twice = try await client.post("/user/createUserWithFacebook", ["fb_at": "fb-token-1", "username": "jo2"])
            #expect(twice.status == .badRequest)
            #expect(try await client.get("/user/jo2").status == .notFound)
            // Without fb_at.
            let missing = try await client.post("/user/createUserWithFacebook", ["username": "nobody"])
            #expect(missing.status == .badRequest)
            #expect(missing.error == "The parameter 'fb_at' is required")
        }
    }

    @Test("link, user info, post, unlink for the logged-in user; one account per user; deleting the user frees the account")
    func linkInfoPostUnlink() async throws {
        let stub = SocialProviderStub()
        await stub.addFacebookUser(token: "fb-token-zoe", id: "3001", name: "Zoe")
        try await SocialProviderStub.run(stub) { client, clock in
            #expect(try await client.post("/user", ["username": "zoe", "password": "pw-zoe"]).status == .created)
            #expect(try await client.post("/user", ["username": "yan", "password": "pw-yan"]).status == .created)
            let zoe = try await client.login([("username", "zoe"), ("password", "pw-zoe")])
            let yan = try await client.login([("username", "yan"), ("password", "pw-yan")])
            // Not logged in: 401; logged in but not linked: info and post 400, unlink 404.
            #expect(try await client.get("/user/linkUserWithFacebook?fb_at=fb-token-zoe").status == .unauthorized)
            #expect(try await client.signed(.get, "/user/getFacebookUserInfo", zoe, clock: clock).status == .badRequest)
            #expect(try await client.signed(.delete, "/user/unlinkUserFromFacebook", zoe, clock: clock).status == .notFound)
            // JS adds token_type to the link query.
            let link = try await client.signed(.get, "/user/linkUserWithFacebook?fb_at=fb-token-zoe&token_type=mac", zoe, clock: clock)
            #expect(link.status == .ok, "\(link.text)")
            #expect(link.object?["username"] == "zoe")
            // Another user cannot take the account.
            let stolen = try await client.signed(.get, "/user/linkUserWithFacebook?fb_at=fb-token-zoe", yan, clock: clock)
            #expect(stolen.status == .badRequest)
            #expect(stolen.error == "This Facebook account is already linked to another user")
            // The provider's own JSON, fetched with the stored token.
            let info = try await client.signed(.get, "/user/getFacebookUserInfo", zoe, clock: clock)
            #expect(info.status == .ok)
            #expect(info.object == ["id": "3001", "name": "Zoe"])
            let post = try await client.signed(.get, "/user/postFacebookMessage?message=Hello%20from%20StackMob", zoe, clock: clock)
            #expect(post.status == .ok, "\(post.text)")
            #expect(post.object?["id"] == "3001_1")
            #expect(await stub.facebookPosts == ["Hello from StackMob"])
            let feed = try #require(await stub.requests(to: "/me/feed").first)
            #expect(feed.method == "POST")
            #expect(feed.parameters["access_token"] == "fb-token-zoe")
            // Logging in with Facebook is now logging in as zoe.
            let login = try await client.postForm("/user/facebookAccessToken", [("fb_at", "fb-token-zoe"), ("token_type", "mac")])
            _ = try await SocialChecks.expectTokenResponse(login, username: "zoe", client: client, clock: clock)
            // Unlink: 200 {}, then 404, and the token login no longer finds a user.
            let unlink = try await client.signed(.delete, "/user/unlinkUserFromFacebook", zoe, clock: clock)
            #expect(unlink.status == .ok)
            #expect(unlink.object == [:])
            #expect(try await client.signed(.delete, "/user/unlinkUserFromFacebook", zoe, clock: clock).status == .notFound)
            #expect(
                try await client.postForm("/user/facebookAccessToken", [("fb_at", "fb-token-zoe"), ("token_type", "mac")]).status
                    == .badRequest)
            // Linked to yan, then yan is deleted: the account can link to zoe again.
            #expect(try await client.signed(.get, "/user/linkUserWithFacebook?fb_at=fb-token-zoe", yan, clock: clock).status == .ok)
            #expect(try await client.signed(.delete, "/user/yan", yan, clock: clock).status == .ok)
            #expect(try await client.signed(.get, "/user/linkUserWithFacebook?fb_at=fb-token-zoe", zoe, clock: clock).status == .ok)
        }
    }

    @Test("legacy facebookLogin answers the linked user and a session cookie (§8.9)")
    func legacyCookieLogin() async throws {
        let stub = SocialProviderStub()
        await stub.addFacebookUser(token: "fb-token-old", id: "4001", name: "Old")
        try await SocialProviderStub.run(stub) { client, _ in
            #expect(try await client.get("/user/createUserWithFacebook?fb_at=fb-token-old&username=old").status == .created)
            let login = try await client.get("/user/facebookLogin?fb_at=fb-token-old")
            #expect(login.status == .ok)
            #expect(login.object?["username"] == "old")
            let cookie = try #require(login.header("Set-Cookie"))
            #expect(cookie.hasPrefix("session_development="))
        }
    }

    @Test("a token Facebook rejects, or issued to another app, is a 400; nothing is created")
    func rejectedTokens() async throws {
        let stub = SocialProviderStub()
        await stub.addFacebookUser(token: "fb-token-foreign", id: "5001", name: "Foreign", app: "another-app")
        try await SocialProviderStub.run(stub) { client, _ in
            let unknown = try await client.postForm(
                "/user/facebookAccessTokenWithCreate", [("fb_at", "expired-token"), ("token_type", "mac"), ("username", "x")])
            #expect(unknown.status == .badRequest)
            #expect(unknown.error == "Facebook rejected the credentials")
            let foreign = try await client.postForm(
                "/user/facebookAccessTokenWithCreate", [("fb_at", "fb-token-foreign"), ("token_type", "mac"), ("username", "x")])
            #expect(foreign.status == .badRequest)
            #expect(foreign.error == "The Facebook access token was issued to another app")
            #expect(try await client.get("/user/x").status == .notFound)
        }
    }
}
