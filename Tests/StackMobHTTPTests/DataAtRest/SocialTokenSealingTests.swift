import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// The social providers' tokens outlive the session that stored them, so they are kept sealed
/// with the server's `seal.key`, not hashed (docs/operations.md, "Data at rest").
@Suite("Data at rest: social provider tokens")
struct SocialTokenSealingTests {
    /// The stand-ins and a server calling them, on `directory`, as `SocialProviderStub.run` does.
    static func run(
        _ stub: SocialProviderStub, directory: String, clock: ManualClock, _ body: @escaping @Sendable (StackMobClient) async throws -> Void
    ) async throws -> StackMobConfiguration {
        try await stub.app().test(.live) { hook in
            var configuration = TestServer.configuration(dataDirectory: directory)
            SocialProviderStub.configure(&configuration, baseURL: "http://127.0.0.1:\(try #require(hook.port))")
            try await TestServer.run(configuration: configuration, clock: clock, body)
            return configuration
        }
    }

    /// The stored row of a user's link, as the engine holds it.
    static func storedLink(_ provider: SocialProvider, userID: String, configuration: StackMobConfiguration) async throws -> SocialLink? {
        let storage = try await TestServer.storage(configuration).open(.development, registry: SchemaRegistry(), indexes: [:])
        let link = try await storage.tokens.socialLink(provider, userSchema: "user", userID: userID)
        try await storage.engine.close()
        return link
    }

    @Test("after a login and a link the stored token and secret are not in clear, and user info still reads them")
    func sealed() async throws {
        let stub = SocialProviderStub()
        await stub.addTwitterUser(token: "tw-token-sealed", secret: "tw-secret-sealed", id: "7101", screenName: "sealy")
        await stub.addFacebookUser(token: "fb-token-sealed", id: "7102", name: "Fay")
        let clock = ManualClock(Int64(Date().timeIntervalSince1970 * 1000))
        try await TestServer.withDataDirectory { directory in
            let configuration = try await Self.run(stub, directory: directory, clock: clock) { client async throws in
                let twitter = try await client.postForm(
                    "/user/twitterAccessTokenWithCreate", [("tw_tk", "tw-token-sealed"), ("tw_ts", "tw-secret-sealed"), ("username", "sealy")])
                let session = try await SocialChecks.expectTokenResponse(twitter, username: "sealy", client: client, clock: clock)
                #expect(try await client.signed(.get, "/user/linkUserWithFacebook?fb_at=fb-token-sealed", session, clock: clock).status == .ok)
                #expect(try await client.signed(.get, "/user/getTwitterUserInfo", session, clock: clock).object?["screen_name"] == "sealy")
                #expect(try await client.signed(.get, "/user/getFacebookUserInfo", session, clock: clock).status == .ok)
            }
            let twitter = try #require(try await Self.storedLink(.twitter, userID: "sealy", configuration: configuration))
            let facebook = try #require(try await Self.storedLink(.facebook, userID: "sealy", configuration: configuration))
            for (stored, clear) in [(twitter.token, "tw-token-sealed"), (twitter.tokenSecret, "tw-secret-sealed"), (facebook.token, "fb-token-sealed")] {
                let value = try #require(stored)
                #expect(!value.contains(clear), "stored in clear: \(value)")
                #expect(!value.contains(Data(clear.utf8).base64EncodedString()), "stored merely encoded: \(value)")
            }
            // Sealed, not hashed: after a restart (a new session), info and posts still reach the provider.
            _ = try await Self.run(stub, directory: directory, clock: clock) { client async throws in
                let login = try await client.postForm("/user/facebookAccessToken", [("fb_at", "fb-token-sealed")])
                let session = try #require(MACSession(login))
                #expect(try await client.signed(.get, "/user/getTwitterUserInfo", session, clock: clock).object?["screen_name"] == "sealy")
            }
        }
    }

    @Test("a token an earlier version stored in clear still works, and is sealed at the next login")
    func clearRowsStillRead() async throws {
        let stub = SocialProviderStub()
        await stub.addFacebookUser(token: "fb-token-old", id: "7201", name: "Old")
        let clock = ManualClock(Int64(Date().timeIntervalSince1970 * 1000))
        try await TestServer.withDataDirectory { directory in
            let configuration = try await Self.run(stub, directory: directory, clock: clock) { client async throws in
                #expect(try await client.post("/user", ["username": "olga", "password": "pw-olga"]).status == .created)
            }
            // The row as an earlier version wrote it.
            let storage = try await TestServer.storage(configuration).open(.development, registry: SchemaRegistry(), indexes: [:])
            try await storage.tokens.link(
                SocialLink(provider: .facebook, userSchema: "user", accountID: "7201", userID: "olga", token: "fb-token-old", tokenSecret: nil), at: 0)
            try await storage.engine.close()
            _ = try await Self.run(stub, directory: directory, clock: clock) { client async throws in
                let session = try await client.login([("username", "olga"), ("password", "pw-olga")])
                let info = try await client.signed(.get, "/user/getFacebookUserInfo", session, clock: clock)
                #expect(info.status == .ok, "\(info.text)")
                #expect(info.object?["name"] == "Old")
                #expect(try await client.postForm("/user/facebookAccessToken", [("fb_at", "fb-token-old")]).status == .ok)
            }
            let stored = try #require(try await Self.storedLink(.facebook, userID: "olga", configuration: configuration)?.token)
            #expect(!stored.contains("fb-token-old"), "still in clear after a login: \(stored)")
        }
    }
}
