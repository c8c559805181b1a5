import Foundation
import Logging
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("Social: provider tokens and app secrets never reach the logs")
struct SocialSecretLoggingTests {
    @Test("logins, links, posts and failures of every provider, logged at trace level, leak no token or secret")
    func noSecretsInLogs() async throws {
        let (logger, store) = CapturingLogHandler.logger()
        let stub = SocialProviderStub()
        await stub.addFacebookUser(token: "fb-Secret-token", id: "1", name: "F")
        await stub.addTwitterUser(token: "tw-Secret-token", secret: "tw-Secret-secret", id: "2", screenName: "t")
        // 10 s, so that a loaded machine still answers the normal calls in time (at 3 s a CI run
        // timed one out while the whole suite started); the last request waits for a provider
        // that answers only after 12 s.
        try await SocialProviderStub.run(stub, logger: logger, configure: { $0.development.social.timeoutSeconds = 10 }) { client, clock in
            let facebook = try await client.postForm("/user/facebookAccessTokenWithCreate", [("fb_at", "fb-Secret-token"), ("username", "f")])
            let session = try #require(MACSession(facebook))
            #expect(try await client.signed(.get, "/user/postFacebookMessage?message=hi", session, clock: clock).status == .ok)
            #expect(try await client.signed(.get, "/user/linkUserWithFacebook?fb_at=fb-Secret-token", session, clock: clock).status == .ok)
            #expect(
                try await client.postForm("/user/twitterAccessTokenWithCreate", [("tw_tk", "tw-Secret-token"), ("tw_ts", "tw-Secret-secret")]).status
                    == .ok)
            #expect(try await client.postForm("/user/facebookAccessToken", [("fb_at", "fb-Secret-unknown")]).status == .badRequest)
            let ts = String(clock.nowMilliseconds() / 1000)
            let signature = GigyaFixture.signature(uid: "g", timestamp: ts)
            #expect(
                try await client.postForm("/user/gigyaAccessToken", [("gigya_uid", "g"), ("gigya_ts", ts), ("gigya_sig", signature)]).status == .ok)
            await stub.setDelay(seconds: 12)
            #expect(try await client.postForm("/user/facebookAccessToken", [("fb_at", "fb-Secret-token")]).status == .gatewayTimeout)
        }
        let lines = store.all
        #expect(lines.contains { $0.message == "User logged in through a provider" && $0.metadata["sm.provider"] == "twitter" })
        let secrets = [
            "fb-Secret-token", "fb-Secret-unknown", "tw-Secret-token", "tw-Secret-secret", SocialProviderStub.facebookAppSecret,
            SocialProviderStub.twitterConsumerSecret, GigyaFixture.secret,
        ]
        for line in lines {
            for secret in secrets {
                #expect(!line.fullText.contains(secret), "a secret leaked into: \(line.message)")
            }
        }
    }
}
