import Foundation
import HTTPTypes
import StackMobCore
import StackMobTestSupport
import Testing

/// What the social suites share: SDK-shaped requests and the checks of a token response.
extension StackMobClient {
    /// A MAC-signed request at the clock's time, with a fresh nonce.
    func signed(_ method: HTTPRequest.Method, _ target: String, _ session: MACSession, clock: ManualClock, json: JSONValue? = nil)
        async throws -> APIResponse
    {
        try await signed(method, target, session: session, ts: clock.nowMilliseconds() / 1000, nonce: UUID().uuidString, json: json)
    }
}

enum SocialChecks {
    /// The §8.2 token response for `username`, whose session works for signed requests.
    static func expectTokenResponse(
        _ response: APIResponse, username: String, client: StackMobClient, clock: ManualClock, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> MACSession {
        #expect(response.status == .ok, "\(response.text)", sourceLocation: sourceLocation)
        let body = try #require(response.object, sourceLocation: sourceLocation)
        #expect(body["token_type"] == "mac", sourceLocation: sourceLocation)
        #expect(body["mac_algorithm"] == "hmac-sha-1", sourceLocation: sourceLocation)
        #expect(body["expires_in"] == .integer(3600), sourceLocation: sourceLocation)
        let user = try #require(body["stackmob"]?.objectValue?["user"]?.objectValue, sourceLocation: sourceLocation)
        #expect(user["username"] == .string(username), sourceLocation: sourceLocation)
        #expect(user["password"] == nil, sourceLocation: sourceLocation)
        let session = try #require(MACSession(response), sourceLocation: sourceLocation)
        let me = try await client.signed(.get, "/user/loggedInUser", session, clock: clock)
        #expect(me.status == .ok, sourceLocation: sourceLocation)
        #expect(me.object?["username"] == .string(username), sourceLocation: sourceLocation)
        return session
    }

    /// No provider token or secret ever appears in an answer.
    static func expectNoSecrets(_ response: APIResponse, _ secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in secrets {
            #expect(!response.text.contains(secret), "answer leaks a secret", sourceLocation: sourceLocation)
        }
    }
}
