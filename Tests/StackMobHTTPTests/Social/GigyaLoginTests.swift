import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("Social: Gigya (PROTOCOL §9), checked locally with the site secret")
struct GigyaLoginTests {
    static func fields(uid: String, clock: ManualClock, secret: String = GigyaFixture.secret, skewSeconds: Int64 = 0) -> [(String, String)] {
        let ts = String(clock.nowMilliseconds() / 1000 + skewSeconds)
        return [("gigya_uid", uid), ("gigya_ts", ts), ("gigya_sig", GigyaFixture.signature(uid: uid, timestamp: ts, secret: secret))]
    }

    @Test("gigyaAccessToken creates the user when needed, then logs the same user in")
    func login() async throws {
        try await SocialProviderStub.run(SocialProviderStub()) { client, clock in
            let first = try await client.postForm(
                "/user/gigyaAccessToken", Self.fields(uid: "_guid_abc=", clock: clock) + [("token_type", "mac"), ("username", "gina")])
            _ = try await SocialChecks.expectTokenResponse(first, username: "gina", client: client, clock: clock)
            clock.advance(by: 5_000)
            let again = try await client.postForm(
                "/user/gigyaAccessToken", Self.fields(uid: "_guid_abc=", clock: clock) + [("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")])
            _ = try await SocialChecks.expectTokenResponse(again, username: "gina", client: client, clock: clock)
            // No name: the UID.
            let unnamed = try await client.postForm("/user/gigyaAccessToken", Self.fields(uid: "uid-2", clock: clock) + [("token_type", "mac")])
            _ = try await SocialChecks.expectTokenResponse(unnamed, username: "uid-2", client: client, clock: clock)
        }
    }

    @Test("a wrong signature, another site's secret, a stale timestamp: 400")
    func rejected() async throws {
        try await SocialProviderStub.run(SocialProviderStub()) { client, clock in
            var forged = Self.fields(uid: "uid-1", clock: clock)
            forged[0] = ("gigya_uid", "uid-other")
            #expect(try await client.postForm("/user/gigyaAccessToken", forged).error == "Gigya rejected the credentials")
            let otherSite = Self.fields(uid: "uid-1", clock: clock, secret: Data("another site".utf8).base64EncodedString())
            #expect(try await client.postForm("/user/gigyaAccessToken", otherSite).status == .badRequest)
            let stale = try await client.postForm("/user/gigyaAccessToken", Self.fields(uid: "uid-1", clock: clock, skewSeconds: -3600))
            #expect(stale.status == .badRequest)
            #expect(stale.error == "gigya_ts is too far from the server's time")
            #expect(try await client.get("/user/uid-1").status == .notFound)
        }
    }

    @Test("linkUserWithGigya: JS POST JSON with model attributes, iOS POST JSON, Java GET; unlink 200 then 404")
    func linkVariants() async throws {
        try await SocialProviderStub.run(SocialProviderStub()) { client, clock in
            for name in ["js", "ios", "java"] {
                #expect(try await client.post("/user", ["username": .string(name), "password": "pw"]).status == .created)
            }
            let js = try await client.login([("username", "js"), ("password", "pw")])
            let ios = try await client.login([("username", "ios"), ("password", "pw")])
            let java = try await client.login([("username", "java"), ("password", "pw")])
            var jsBody: JSONObject = ["username": "js", "email": "js@example.com", "token_type": "mac"]
            for (key, value) in Self.fields(uid: "uid-js", clock: clock) { jsBody[key] = .string(value) }
            #expect(try await client.signed(.post, "/user/linkUserWithGigya", js, clock: clock, json: .object(jsBody)).status == .ok)
            var iosBody: JSONObject = [:]
            for (key, value) in Self.fields(uid: "uid-ios", clock: clock) { iosBody[key] = .string(value) }
            #expect(try await client.signed(.post, "/user/linkUserWithGigya", ios, clock: clock, json: .object(iosBody)).status == .ok)
            let query = Self.fields(uid: "uid-java", clock: clock).map { "\($0.0)=\(OAuth1Signer.rfc3986($0.1))" }.joined(separator: "&")
            #expect(try await client.signed(.get, "/user/linkUserWithGigya?\(query)", java, clock: clock).status == .ok)
            // Each account now logs its user in.
            for (uid, name) in [("uid-js", "js"), ("uid-ios", "ios"), ("uid-java", "java")] {
                let login = try await client.postForm("/user/gigyaAccessToken", Self.fields(uid: uid, clock: clock))
                _ = try await SocialChecks.expectTokenResponse(login, username: name, client: client, clock: clock)
            }
            #expect(try await client.signed(.delete, "/user/unlinkUserFromGigya", js, clock: clock).status == .ok)
            #expect(try await client.signed(.delete, "/user/unlinkUserFromGigya", js, clock: clock).status == .notFound)
            #expect(try await client.delete("/user/unlinkUserFromGigya").status == .unauthorized)
        }
    }
}
