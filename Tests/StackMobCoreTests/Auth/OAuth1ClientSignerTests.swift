import Foundation
import Testing

@testable import StackMobCore

@Suite("OAuth 1.0a client signing (Twitter) and Gigya's UID signature")
struct OAuth1ClientSignerTests {
    /// Twitter's documented example ("Creating a signature"): a status update with
    /// `include_entities=true`, whose published signature is `hCtSmYh+iHYCEqBWrE7C7hYmtUk=`.
    @Test("Twitter's published signature example reproduces exactly")
    func twitterExample() {
        let signer = OAuth1ClientSigner(
            consumerKey: "xvz1evFS4wEEPTGEFPHBog", consumerSecret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw",
            token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", tokenSecret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE")
        let header = signer.authorization(
            method: "POST", baseURL: "https://api.twitter.com/1.1/statuses/update.json",
            parameters: [("status", "Hello Ladies + Gentlemen, a signed OAuth request!"), ("include_entities", "true")],
            nonce: "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", timestamp: 1_318_622_958)
        #expect(header.hasPrefix("OAuth oauth_consumer_key=\"xvz1evFS4wEEPTGEFPHBog\", oauth_nonce=\"kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg\""))
        #expect(header.contains("oauth_signature=\"hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D\""))
        #expect(header.contains("oauth_token=\"370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb\""))
        #expect(!header.contains("LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"))
    }

    @Test("Gigya: base64(HMAC-SHA1(base64decode(secret), ts_UID)), within the timestamp window")
    func gigya() throws {
        let secret = Data("secret-key".utf8).base64EncodedString()
        let settings = GigyaSettings(secret: secret, timestampWindowSeconds: 180)
        let signature = try #require(GigyaSignature.sign(uid: "u1", timestamp: "1700000000", secret: secret))
        #expect(signature == "MYRCd4bqMDbQtTLQPzoJRATSSAE=")
        let identity = try GigyaSignature.verify(
            uid: "u1", timestamp: "1700000000", signature: signature, settings: settings, nowMilliseconds: 1_700_000_100_000)
        #expect(identity.accountID == "u1")
        #expect(throws: SocialError.staleTimestamp) {
            try GigyaSignature.verify(uid: "u1", timestamp: "1700000000", signature: signature, settings: settings, nowMilliseconds: 1_700_000_181_000)
        }
        #expect(throws: SocialError.rejected(.gigya)) {
            try GigyaSignature.verify(uid: "u2", timestamp: "1700000000", signature: signature, settings: settings, nowMilliseconds: 1_700_000_000_000)
        }
    }
}
