import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("Social: Twitter (PROTOCOL §9) against a local REST API checking OAuth 1.0a signatures")
struct TwitterLoginTests {
    @Test("twitterAccessTokenWithCreate creates and links; twitterAccessToken and twitterLogin log in (D10); signatures verified")
    func loginWithCreate() async throws {
        let stub = SocialProviderStub()
        await stub.addTwitterUser(token: "tw-token-ann", secret: "tw-secret-ann", id: "7001", screenName: "ann_tw")
        await stub.addTwitterUser(token: "tw-token-bo", secret: "tw-secret bo+/=", id: "7002", screenName: "bo")
        try await SocialProviderStub.run(stub) { client, clock in
            let refused = try await client.postForm("/user/twitterAccessToken", [("tw_tk", "tw-token-ann"), ("tw_ts", "tw-secret-ann")])
            #expect(refused.status == .badRequest)
            // iOS and Java: form with token_type, mac_algorithm and optional username.
            let created = try await client.postForm(
                "/user/twitterAccessTokenWithCreate",
                [("tw_tk", "tw-token-ann"), ("tw_ts", "tw-secret-ann"), ("username", "ann"), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")])
            _ = try await SocialChecks.expectTokenResponse(created, username: "ann", client: client, clock: clock)
            for endpoint in ["twitterAccessToken", "twitterLogin"] {
                let login = try await client.postForm("/user/\(endpoint)", [("tw_tk", "tw-token-ann"), ("tw_ts", "tw-secret-ann"), ("token_type", "mac")])
                _ = try await SocialChecks.expectTokenResponse(login, username: "ann", client: client, clock: clock)
                SocialChecks.expectNoSecrets(login, ["tw-token-ann", "tw-secret-ann", SocialProviderStub.twitterConsumerSecret])
            }
            // A secret full of characters OAuth encodes; no username: the Twitter id.
            let bo = try await client.postForm("/user/twitterAccessTokenWithCreate", [("tw_tk", "tw-token-bo"), ("tw_ts", "tw-secret bo+/=")])
            _ = try await SocialChecks.expectTokenResponse(bo, username: "7002", client: client, clock: clock)
            #expect(await stub.badSignatures == 0)
            let verify = try #require(await stub.requests(to: "/1.1/account/verify_credentials.json").first)
            #expect(verify.method == "GET")
            #expect(verify.authorization?.contains("oauth_token=\"tw-token-ann\"") == true)
            #expect(verify.authorization?.contains("oauth_consumer_key=\"tw-consumer-key-1\"") == true)
            // The wrong token secret makes a wrong signature, which Twitter refuses: 400.
            let forged = try await client.postForm("/user/twitterAccessToken", [("tw_tk", "tw-token-ann"), ("tw_ts", "guessed")])
            #expect(forged.status == .badRequest)
            #expect(forged.error == "Twitter rejected the credentials")
            #expect(await stub.badSignatures == 1)
        }
    }

    @Test("createUserWithTwitter: iOS GET with the primary-key field, Java POST JSON, form; 201 and the user")
    func create() async throws {
        let stub = SocialProviderStub()
        for n in 1...3 { await stub.addTwitterUser(token: "tw-token-\(n)", secret: "tw-secret-\(n)", id: "80\(n)", screenName: "u\(n)") }
        try await SocialProviderStub.run(stub) { client, _ in
            let ios = try await client.get("/user/createUserWithTwitter?tw_tk=tw-token-1&tw_ts=tw-secret-1&username=ivy")
            #expect(ios.status == .created, "\(ios.text)")
            #expect(ios.object?["username"] == "ivy")
            SocialChecks.expectNoSecrets(ios, ["tw-token-1", "tw-secret-1"])
            let java = try await client.post("/user/createUserWithTwitter", ["tw_tk": "tw-token-2", "tw_ts": "tw-secret-2", "username": "jay"])
            #expect(java.status == .created)
            #expect(java.object?["username"] == "jay")
            let form = try await client.postForm("/user/createUserWithTwitter", [("tw_tk", "tw-token-3"), ("tw_ts", "tw-secret-3"), ("username", "kai")])
            #expect(form.status == .created)
            #expect(try await client.get("/user/createUserWithTwitter?tw_tk=tw-token-1&tw_ts=tw-secret-1&username=ivy2").status == .badRequest)
            #expect(try await client.get("/user/createUserWithTwitter?tw_tk=tw-token-1").error == "The parameter 'tw_ts' is required")
            #expect(await stub.badSignatures == 0)
        }
    }

    @Test("link, user info, status update (signed with the body), unlink; legacy twitterlogin")
    func linkInfoUpdateUnlink() async throws {
        let stub = SocialProviderStub()
        await stub.addTwitterUser(token: "tw-token-zed", secret: "tw-secret-zed", id: "9001", screenName: "zed")
        try await SocialProviderStub.run(stub) { client, clock in
            #expect(try await client.post("/user", ["username": "zed", "password": "pw-zed"]).status == .created)
            let zed = try await client.login([("username", "zed"), ("password", "pw-zed")])
            #expect(try await client.signed(.get, "/user/twitterStatusUpdate?tw_st=hi", zed, clock: clock).status == .badRequest)
            let link = try await client.signed(.get, "/user/linkUserWithTwitter?tw_tk=tw-token-zed&tw_ts=tw-secret-zed", zed, clock: clock)
            #expect(link.status == .ok, "\(link.text)")
            let info = try await client.signed(.get, "/user/getTwitterUserInfo", zed, clock: clock)
            #expect(info.status == .ok)
            #expect(info.object?["screen_name"] == "zed")
            #expect(info.object?["id_str"] == "9001")
            // Spaces, `+`, `&` and non-ASCII in the status must be signed exactly as sent.
            let status = "Hello & good+day, wörld!"
            let update = try await client.signed(
                .get, "/user/twitterStatusUpdate?tw_st=Hello%20%26%20good%2Bday%2C%20w%C3%B6rld%21", zed, clock: clock)
            #expect(update.status == .ok, "\(update.text)")
            #expect(update.object?["text"] == .string(status))
            #expect(await stub.tweets == [status])
            #expect(await stub.badSignatures == 0)
            let sent = try #require(await stub.requests(to: "/1.1/statuses/update.json").first)
            #expect(sent.method == "POST")
            #expect(sent.parameters["status"] == status)
            // Legacy cookie login with the same credentials.
            let cookie = try await client.get("/user/twitterlogin?tw_tk=tw-token-zed&tw_ts=tw-secret-zed")
            #expect(cookie.status == .ok)
            #expect(cookie.header("Set-Cookie")?.hasPrefix("session_development=") == true)
            let unlink = try await client.signed(.delete, "/user/unlinkUserFromTwitter", zed, clock: clock)
            #expect(unlink.status == .ok)
            #expect(try await client.signed(.delete, "/user/unlinkUserFromTwitter", zed, clock: clock).status == .notFound)
            #expect(try await client.signed(.get, "/user/getTwitterUserInfo", zed, clock: clock).status == .badRequest)
        }
    }
}
