import Crypto
import Foundation
import NIOHTTP1
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("APNs sender against a local HTTP/2 stub (§11)")
struct APNsSenderTests {
    @Test("ES256 provider token, APNs headers and the aps payload over HTTP/2; BadDeviceToken expires the token")
    func delivery() async throws {
        let key = P256.Signing.PrivateKey()
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("AuthKey_\(UUID().uuidString).p8").path
        try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: keyFile) }
        let good = PushFixtures.iosToken(6)
        let bad = PushFixtures.iosToken(7)
        let stub = try await APNsStubServer(publicKey: key.publicKey, badToken: bad)
        defer { Task { await stub.stop() } }
        let before = Int64(Date().timeIntervalSince1970)
        try await TestServer.run(configure: { configuration in
            configuration.development.push.senders[.ios] = .apns
            configuration.development.push.apns = APNsSettings(
                keyFile: keyFile, keyID: "KEYID12345", teamID: "TEAM123456", topic: "com.example.app",
                endpoint: "https://localhost:\(stub.port)", caFile: APNsStubServer.certificateFile)
            configuration.push.delivery.pollIntervalMilliseconds = 20
        }) { api in
            try await PushHost.withClient(port: api.port) { push in
                #expect(try await push.pushSigned(.put, "/tokens/ios/\(good)", json: ["user": "ann"]).status == .ok)
                #expect(try await push.pushSigned(.put, "/tokens/ios/\(bad)", json: ["user": "ann"]).status == .ok)
                let sent = try await push.pushSigned(
                    .post, "/push_users_universal", json: ["kvPairs": ["message": "Hello", "badge": "2", "team": "blue"], "userIds": ["ann"]], shape: .iOS)
                #expect(sent.status == .ok)
                #expect(try await eventually { try await push.pushSigned(.get, "/expired_tokens").array?.count == 1 })
                #expect(try await eventually { stub.received.count == 2 })
                let expired = try await push.pushSigned(.get, "/expired_tokens").array?.first?.objectValue
                #expect(expired?["token"] == .string(bad))
                #expect(expired?["user"] == "ann")
                // The good token stays registered; the bad one is gone.
                let tokens = try await push.pushSigned(.get, "/tokens?user=ann").array?.compactMap { $0.objectValue?["token"]?.stringValue }
                #expect(tokens == [good])
            }
        }
        let received = stub.received
        let request = try #require(received.first { $0.path == "/3/device/\(good)" })
        #expect(request.method == "POST")
        #expect(request.version.major == 2)
        #expect(request.headers["apns-topic"] == "com.example.app")
        #expect(request.headers["apns-push-type"] == "alert")
        #expect(request.body == ["aps": ["alert": "Hello", "badge": 2], "team": "blue"])
        let jwt = try #require(request.headers["authorization"]?.dropFirst("bearer ".count)).description
        #expect(APNsStubServer.State.verify(jwt, key: key.publicKey))
        let parts = jwt.split(separator: ".").map(String.init)
        let header = try JSONParser.parse(Array(#require(APNsStubServer.State.decode(parts[0]))))
        let claims = try JSONParser.parse(Array(#require(APNsStubServer.State.decode(parts[1])))).objectValue
        #expect(header == ["alg": "ES256", "kid": "KEYID12345"])
        #expect(claims?["iss"] == "TEAM123456")
        let issuedAt = try #require(claims?["iat"]?.integerValue)
        #expect(issuedAt >= before && issuedAt <= Int64(Date().timeIntervalSince1970))
        // One provider token for both requests (cached, not made per request).
        #expect(Set(received.compactMap { $0.headers["authorization"] }).count == 1)
        // A JWT from another key would have been refused.
        #expect(!APNsStubServer.State.verify(try APNsJWT.make(key: P256.Signing.PrivateKey(), keyID: "K", teamID: "T", issuedAtSeconds: issuedAt), key: key.publicKey))
    }
}
