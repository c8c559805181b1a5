import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// A private-key request that signs its body with `oauth_body_hash`, as the stackmob-ruby gem
/// does (OAuth Request Body Hash): the body must be the one signed. The SDKs of PROTOCOL §3.3
/// sign no body, and their requests verify as before.
@Suite("OAuth 1.0 signed bodies (oauth_body_hash)")
struct OAuth1BodyHashTests {
    static let altered = "The oauth_body_hash does not match the request body"

    @Test("a signed body passes; the same request with its JSON changed after signing is 401 and stores nothing", arguments: OAuth1Signer.Shape.allCases)
    func alteredBody(shape: OAuth1Signer.Shape) async throws {
        try await TestServer.run { client in
            let signed: JSONValue = ["todo_id": "t1", "title": "pay 10"]
            let created = try await client.oauth1(.post, "/todo", shape: shape, json: signed, signedBody: .sent)
            #expect(created.status == .created, "\(created.text)")
            #expect(created.object?["title"] == "pay 10")

            let changed = try await client.oauth1(
                .post, "/todo", shape: shape, json: ["todo_id": "t2", "title": "pay 10000"], signedBody: .other(["todo_id": "t2", "title": "pay 10"]))
            #expect(changed.status == .unauthorized)
            #expect(changed.error == Self.altered)
            #expect(try await client.oauth1(.get, "/todo/t2", shape: shape).status == .notFound)

            // An update too, and a body-less request, whose hash is that of no bytes.
            let update = try await client.oauth1(.put, "/todo/t1", shape: shape, json: ["title": "pay 11"], signedBody: .other(["title": "pay 12"]))
            #expect(update.status == .unauthorized)
            #expect(update.error == Self.altered)
            let read = try await client.oauth1(.get, "/todo/t1", shape: shape, signedBody: .sent)
            #expect(read.status == .ok, "\(read.text)")
            #expect(read.object?["title"] == "pay 10")
        }
    }

    @Test("without oauth_body_hash the body is not checked, as the Java and iOS SDKs sign", arguments: OAuth1Signer.Shape.allCases)
    func unsignedBody(shape: OAuth1Signer.Shape) async throws {
        try await TestServer.run { client in
            let created = try await client.oauth1(.post, "/todo", shape: shape, json: ["todo_id": "t1", "title": "unsigned body"])
            #expect(created.status == .created, "\(created.text)")
            let updated = try await client.oauth1(.put, "/todo/t1", shape: shape, json: ["title": "still unsigned"])
            #expect(updated.status == .ok, "\(updated.text)")
        }
    }

    @Test("oauth_body_hash is signed: replacing it with the altered body's hash breaks the signature")
    func hashIsSigned() async throws {
        try await TestServer.run { client in
            let now = Int64(Date().timeIntervalSince1970)
            let signed: JSONValue = ["todo_id": "t1", "title": "signed"]
            let sent: JSONValue = ["todo_id": "t1", "title": "forged"]
            let header = OAuth1Signer.authorization(
                method: "POST", target: "/todo", consumerKey: TestServer.developmentPublicKey, secret: TestServer.developmentPrivateKey,
                shape: .java, timestamp: now, bodyHash: OAuth1Signer.bodyHash(JSONWriter.bytes(signed, omittingNulls: false)))
            let forgedHash = OAuth1Signer.rfc3986(OAuth1Signer.bodyHash(JSONWriter.bytes(sent, omittingNulls: false)))
            let swapped = header.replacing(/oauth_body_hash="[^"]*"/, with: "oauth_body_hash=\"\(forgedHash)\"")
            #expect(swapped != header)
            let response = try await client.withoutKey.request(.post, "/todo", json: sent, headers: ["Authorization": swapped])
            #expect(response.status == .unauthorized)
            #expect(response.error == "The OAuth signature does not match the request")
        }
    }

    @Test("a body past 64 KiB, hashed off the event loop, is checked the same; past the body limit it is 413")
    func largeBody() async throws {
        try await TestServer.run(configure: { $0.maxBodyBytes = 512 * 1024 }) { client in
            let long = String(repeating: "x", count: 200 * 1024)
            let created = try await client.oauth1(.post, "/todo", shape: .java, json: ["todo_id": "t1", "title": .string(long)], signedBody: .sent)
            #expect(created.status == .created, "\(created.text.prefix(200))")
            let changed = try await client.oauth1(
                .post, "/todo", shape: .java, json: ["todo_id": "t2", "title": .string(long + "y")],
                signedBody: .other(["todo_id": "t2", "title": .string(long)]))
            #expect(changed.status == .unauthorized)
            #expect(changed.error == Self.altered)
            let tooLarge = String(repeating: "x", count: 600 * 1024)
            let refused = try await client.oauth1(.post, "/todo", shape: .java, json: ["todo_id": "t3", "title": .string(tooLarge)], signedBody: .sent)
            #expect(refused.status == .contentTooLarge)
        }
    }

    @Test("a header that names another consumer key is refused at once: its body is neither waited for nor read")
    func strangersBodyUnread() async throws {
        try await TestServer.run { client in
            let connection = try await RawConnection.connect(port: client.port)
            let authorization =
                "OAuth oauth_consumer_key=\"not-this-app\",oauth_nonce=\"n1\",oauth_timestamp=\"\(Int(Date().timeIntervalSince1970))\","
                + "oauth_signature_method=\"HMAC-SHA1\",oauth_body_hash=\"2jmj7l5rSw0yVb%2FvlWAYkK%2FYBwk%3D\",oauth_signature=\"x\""
            // A body declared at the limit, of which one byte ever comes.
            try await connection.send(
                [
                    "POST /todo HTTP/1.1", "Host: 127.0.0.1", "Accept: application/vnd.stackmob+json; version=0", "Authorization: \(authorization)",
                    "Content-Type: application/json", "Content-Length: 10000000",
                ].joined(separator: "\r\n") + "\r\n\r\n{")
            let refused = try #require(try await connection.response(timeout: .seconds(5)), "no answer while the body was awaited")
            #expect(refused.status == 401, "\(refused.body)")
            await connection.close()
        }
    }
}
