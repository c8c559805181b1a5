import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("Social: unconfigured, unreachable and silent providers; other user schemas", .tags(.timing))
struct SocialFailureTests {
    static let tokenLogins: [(path: String, fields: [(String, String)], key: String)] = [
        ("/user/facebookAccessToken", [("fb_at", "t")], "social.facebook (app_id, app_secret)"),
        ("/user/twitterAccessToken", [("tw_tk", "t"), ("tw_ts", "s")], "social.twitter (consumer_key, consumer_secret)"),
        ("/user/gigyaAccessToken", [("gigya_uid", "u"), ("gigya_ts", "1"), ("gigya_sig", "s")], "social.gigya (secret)"),
    ]

    @Test("no provider configured: 501 saying what to configure")
    func unconfigured() async throws {
        try await TestServer.run { client in
            for login in Self.tokenLogins {
                let response = try await client.postForm(login.path, login.fields + [("token_type", "mac")])
                #expect(response.status == .notImplemented)
                #expect(response.error?.contains(login.key) == true, "\(response.text)")
            }
            #expect(try await client.get("/user/createUserWithTwitter?tw_tk=a&tw_ts=b&username=u").status == .notImplemented)
        }
    }

    @Test("a provider that cannot be reached: 502; one that does not answer: 504 after the timeout, not a hang")
    func unreachableAndSilent() async throws {
        try await RefusedPort.with { port in
            try await TestServer.run(configure: { SocialProviderStub.configure(&$0, baseURL: "http://127.0.0.1:\(port)") }) { client in
                let facebook = try await client.postForm("/user/facebookAccessToken", [("fb_at", "t")])
                #expect(facebook.status == .badGateway)
                #expect(facebook.error == "Facebook could not be reached")
                let twitter = try await client.postForm("/user/twitterAccessToken", [("tw_tk", "t"), ("tw_ts", "s")])
                #expect(twitter.status == .badGateway)
            }
        }
        let stub = SocialProviderStub()
        await stub.setDelay(seconds: 3)
        try await SocialProviderStub.run(stub, configure: { $0.development.social.timeoutSeconds = 1 }) { client, _ in
            let started = Date()
            let facebook = try await client.postForm("/user/facebookAccessToken", [("fb_at", "t")])
            #expect(facebook.status == .gatewayTimeout)
            #expect(facebook.error == "Facebook did not answer within 1 seconds")
            let twitter = try await client.postForm("/user/twitterAccessToken", [("tw_tk", "t"), ("tw_ts", "s")])
            #expect(twitter.status == .gatewayTimeout)
            #expect(Date().timeIntervalSince(started) < 20)  // two timeouts, not a hang
        }
    }

    @Test("every user schema: a custom login field names the created user")
    func otherUserSchema() async throws {
        let stub = SocialProviderStub()
        await stub.addFacebookUser(token: "fb-member", id: "6001", name: "Member")
        try await SocialProviderStub.run(stub, configure: {
            $0.development.userSchemas = [UserSchema(), UserSchema(name: "member", loginField: "name", passwordField: "pass")]
        }) { client, _ in
            let created = try await client.postForm("/member/facebookAccessTokenWithCreate", [("fb_at", "fb-member"), ("name", "mia")])
            #expect(created.status == .ok, "\(created.text)")
            #expect(created.object?["stackmob"]?.objectValue?["user"]?.objectValue?["name"] == "mia")
            // Links are per user schema: the same account is free under `user`.
            let other = try await client.postForm("/user/facebookAccessTokenWithCreate", [("fb_at", "fb-member"), ("username", "mia")])
            #expect(other.status == .ok)
            // Under a schema that is not a user schema the name is an ordinary object id.
            #expect(try await client.get("/todo/facebookAccessToken").status == .notFound)
        }
    }
}
