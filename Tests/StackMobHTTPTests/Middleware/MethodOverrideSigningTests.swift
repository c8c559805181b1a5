import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("Signatures under X-HTTP-Method-Override (§2.9, §3.2 step 4, D19)")
struct MethodOverrideSigningTests {
    @Test("a MAC over the wire verb or over the override verb verifies; over any other verb it does not")
    func mac() async throws {
        let clock = ManualClock()
        try await TestServer.run(clock: clock) { client in
            #expect(try await client.post("/user", ["username": "alice", "password": "secret-1"]).status == .created)
            let session = try await client.login([("username", "alice"), ("password", "secret-1")])
            let ts = clock.nowMilliseconds() / 1000
            #expect(try await client.signed(.post, "/todo", session: session, ts: ts, json: ["todo_id": "t1", "n": 1]).status == .created)
            // POST overridden to PUT, signed over each verb in turn (fresh nonces: no replay).
            for (signedVerb, value) in [("POST", 2), ("PUT", 3)] {
                let header = MACSigner.authorization(session: session, method: signedVerb, target: "/todo/t1", style: .java, ts: ts)
                let response = try await client.request(
                    .post, "/todo/t1", json: ["n": .integer(Int64(value))], headers: ["Authorization": header, "X-HTTP-Method-Override": "PUT"])
                #expect(response.status == .ok, "signed over \(signedVerb): \(response.text)")
                #expect(response.object?["n"] == .integer(Int64(value)))
            }
            // GET overridden to HEAD, signed over each verb.
            for signedVerb in ["GET", "HEAD"] {
                let header = MACSigner.authorization(session: session, method: signedVerb, target: "/todo/t1", style: .js, ts: ts)
                let response = try await client.request(.get, "/todo/t1", headers: ["Authorization": header, "X-HTTP-Method-Override": "HEAD"])
                #expect(response.status == .ok, "signed over \(signedVerb): \(response.text)")
                #expect(response.body.isEmpty)
            }
            // A verb that is neither the wire verb nor the override is still a bad signature.
            let wrong = MACSigner.authorization(session: session, method: "DELETE", target: "/todo/t1", style: .js, ts: ts)
            #expect(try await client.request(.post, "/todo/t1", json: ["n": 9], headers: ["Authorization": wrong, "X-HTTP-Method-Override": "PUT"]).status == .unauthorized)
            // Without an override only the wire verb counts.
            let put = MACSigner.authorization(session: session, method: "PUT", target: "/todo/t1", style: .js, ts: ts)
            #expect(try await client.request(.post, "/todo/t1", json: ["n": 9], headers: ["Authorization": put]).status == .unauthorized)
        }
    }

    @Test("an OAuth 1.0 signature over the wire verb or over the override verb verifies", arguments: OAuth1Signer.Shape.allCases)
    func oauth1(shape: OAuth1Signer.Shape) async throws {
        try await TestServer.run { client in
            #expect(try await client.oauth1(.post, "/todo", shape: shape, json: ["todo_id": "t1", "n": 1]).status == .created)
            let now = Int64(Date().timeIntervalSince1970)
            for (signedVerb, value) in [("POST", 2), ("PUT", 3)] {
                let header = OAuth1Signer.authorization(
                    method: signedVerb, target: "/todo/t1", consumerKey: TestServer.developmentPublicKey, secret: TestServer.developmentPrivateKey,
                    shape: shape, timestamp: now)
                let response = try await client.withoutKey.request(
                    .post, "/todo/t1", json: ["n": .integer(Int64(value))], headers: ["Authorization": header, "X-HTTP-Method-Override": "PUT"])
                #expect(response.status == .ok, "signed over \(signedVerb): \(response.text)")
                #expect(response.object?["n"] == .integer(Int64(value)))
            }
            for signedVerb in ["GET", "HEAD"] {
                let header = OAuth1Signer.authorization(
                    method: signedVerb, target: "/todo/t1", consumerKey: TestServer.developmentPublicKey, secret: TestServer.developmentPrivateKey,
                    shape: shape, timestamp: now)
                let response = try await client.withoutKey.request(.get, "/todo/t1", headers: ["Authorization": header, "X-HTTP-Method-Override": "HEAD"])
                #expect(response.status == .ok, "signed over \(signedVerb): \(response.text)")
            }
            let wrong = OAuth1Signer.authorization(
                method: "DELETE", target: "/todo/t1", consumerKey: TestServer.developmentPublicKey, secret: TestServer.developmentPrivateKey,
                shape: shape, timestamp: now)
            #expect(try await client.withoutKey.request(.post, "/todo/t1", json: ["n": 9], headers: ["Authorization": wrong, "X-HTTP-Method-Override": "PUT"]).status == .unauthorized)
        }
    }
}
