import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("OAuth 1.0 private-key signatures (§3.3)")
struct OAuth1Tests {
    /// CRUD and a query with parameters, signed in the given shape, with no API-key header.
    static func crudAndQuery(_ client: StackMobClient, shape: OAuth1Signer.Shape, endpoint: OAuth1Signer.Endpoint = .init()) async throws {
        let created = try await client.oauth1(.post, "/todo", shape: shape, json: ["todo_id": "t1", "title": "buy milk & eggs", "rank": 3], endpoint: endpoint)
        #expect(created.status == .created, "\(created.text)")
        #expect(created.object?["sm_owner"] == nil)
        #expect(try await client.oauth1(.post, "/todo", shape: shape, json: ["todo_id": "t2", "title": "other", "rank": 5], endpoint: endpoint).status == .created)
        let read = try await client.oauth1(.get, "/todo/t1", shape: shape, endpoint: endpoint)
        #expect(read.status == .ok)
        #expect(read.object?["title"] == "buy milk & eggs")
        let updated = try await client.oauth1(.put, "/todo/t1", shape: shape, json: ["rank": 4], endpoint: endpoint)
        #expect(updated.status == .ok, "\(updated.text)")
        #expect(updated.object?["rank"] == .integer(4))
        // Parameters that need encoding: a space, `&` and `+` in a value; unsorted keys.
        let query = try await client.oauth1(.get, "/todo?title=buy%20milk%20%26%20eggs&rank%5Bgte%5D=1", shape: shape, endpoint: endpoint)
        #expect(query.status == .ok, "\(query.text)")
        #expect(query.array?.compactMap { $0.objectValue?["todo_id"]?.stringValue } == ["t1"])
        let plus = try await client.oauth1(.get, "/todo?title=other&rank%5Blt%5D=9", shape: shape, endpoint: endpoint)
        #expect(plus.array?.count == 1)
        let deleted = try await client.oauth1(.delete, "/todo/t2", shape: shape, endpoint: endpoint)
        #expect(deleted.status == .ok)
        #expect(try await client.oauth1(.get, "/todo/t2", shape: shape, endpoint: endpoint).status == .notFound)
    }

    @Test("iOS and Java shapes sign CRUD and queries in development, without an API key", arguments: OAuth1Signer.Shape.allCases)
    func development(shape: OAuth1Signer.Shape) async throws {
        try await TestServer.run { client in
            try await Self.crudAndQuery(client, shape: shape)
        }
    }

    @Test("iOS and Java shapes work in production with the production key pair", arguments: OAuth1Signer.Shape.allCases)
    func production(shape: OAuth1Signer.Shape) async throws {
        try await TestServer.run(configure: { $0.production.schemaInference = true }) { client in
            try await Self.crudAndQuery(client.production(), shape: shape)
            // The development key pair does not sign for production, nor the reverse.
            let crossed = try await client.production().oauth1(.get, "/todo", shape: shape, secret: TestServer.developmentPrivateKey)
            #expect(crossed.status == .unauthorized)
        }
    }

    /// These tests read `todo` before writing it: declared, it answers `[]` instead of the 404
    /// of an unknown name (§10.4).
    static func declareTodo(_ configuration: inout StackMobConfiguration) {
        configuration.development.schemas = ["todo": SchemaDeclaration(name: "todo")]
    }

    @Test("explicit ports and https as the client saw them: Java keeps :443, iOS drops it")
    func portsAndSchemes() async throws {
        try await TestServer.run(configure: Self.declareTodo) { client in
            for shape in OAuth1Signer.Shape.allCases {
                let endpoint = OAuth1Signer.Endpoint(scheme: "https", port: 443)
                #expect(try await client.oauth1(.get, "/todo", shape: shape, endpoint: endpoint).status == .ok)
                #expect(try await client.oauth1(.get, "/todo", shape: shape, endpoint: .init(port: 80)).status == .ok)
                // Behind a TLS proxy on 8443 that says so.
                let proxied = try await client.oauth1(
                    .get, "/todo", shape: shape, endpoint: .init(scheme: "https", port: 8443),
                    headers: ["X-Forwarded-Proto": "https", "X-Forwarded-Port": "8443"])
                #expect(proxied.status == .ok)
                // A port the server cannot have been reached on.
                #expect(try await client.oauth1(.get, "/todo", shape: shape, endpoint: .init(port: 9999)).status == .unauthorized)
            }
        }
    }

    @Test("wrong secret, stale timestamp, replayed nonce, tampered query, bad method → 401 with a clear error")
    func failures() async throws {
        try await TestServer.run(configure: Self.declareTodo) { client in
            let now = Int64(Date().timeIntervalSince1970)
            for shape in OAuth1Signer.Shape.allCases {
                let wrong = try await client.oauth1(.get, "/todo", shape: shape, secret: "not-the-private-key")
                #expect(wrong.status == .unauthorized)
                #expect(wrong.error == "The OAuth signature does not match the request")

                let stale = try await client.oauth1(.get, "/todo", shape: shape, timestamp: now - 3600)
                #expect(stale.status == .unauthorized)
                #expect(stale.error == "The oauth_timestamp is too far from the server's clock")

                let nonce = UUID().uuidString
                #expect(try await client.oauth1(.get, "/todo", shape: shape, timestamp: now, nonce: nonce).status == .ok)
                let replay = try await client.oauth1(.get, "/todo", shape: shape, timestamp: now, nonce: nonce)
                #expect(replay.status == .unauthorized)
                #expect(replay.error == "This OAuth-signed request was already received (replayed nonce)")

                let header = OAuth1Signer.authorization(
                    method: "GET", target: "/todo?rank=1", consumerKey: TestServer.developmentPublicKey,
                    secret: TestServer.developmentPrivateKey, shape: shape, timestamp: now)
                let tampered = try await client.withoutKey.get("/todo?rank=2", headers: ["Authorization": header])
                #expect(tampered.status == .unauthorized)
                #expect(tampered.error == "The OAuth signature does not match the request")
                // The signature covers the method too.
                let otherVerb = try await client.withoutKey.delete("/todo?rank=1", headers: ["Authorization": header])
                #expect(otherVerb.status == .unauthorized)

                let plaintext = header.replacingOccurrences(of: "HMAC-SHA1", with: "PLAINTEXT")
                let method = try await client.withoutKey.get("/todo?rank=1", headers: ["Authorization": plaintext])
                #expect(method.status == .unauthorized)
                #expect(method.error?.contains("HMAC-SHA1") == true)
            }
            let production = try await client.oauth1(.get, "/todo", shape: .java, headers: ["Accept": "application/vnd.stackmob+json; version=1"])
            #expect(production.status == .unauthorized)
            #expect(production.error == "Invalid OAuth consumer key for this API version")
            let garbage = try await client.withoutKey.get("/todo", headers: ["Authorization": "OAuth nonsense"])
            #expect(garbage.status == .unauthorized)
            #expect(garbage.error?.hasPrefix("Malformed Authorization header") == true)
            let none = try await client.withoutKey.get("/todo")
            #expect(none.status == .unauthorized)
            #expect(none.error != nil)
        }
    }

    @Test("timestamp window configurable: 0 disables it; the window follows the server clock")
    func window() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: { $0.development.oauth1TimestampWindowSeconds = 0; Self.declareTodo(&$0) }, clock: clock) { client in
            let ancient = try await client.oauth1(.get, "/todo", shape: .iOS, timestamp: 1)
            #expect(ancient.status == .ok)
        }
        try await TestServer.run(configure: Self.declareTodo, clock: clock) { client in
            let serverNow = clock.nowMilliseconds() / 1000
            let inside = try await client.oauth1(.get, "/todo", shape: .java, timestamp: serverNow + 590)
            #expect(inside.status == .ok)
            let outside = try await client.oauth1(.get, "/todo", shape: .java, timestamp: serverNow - 601)
            #expect(outside.status == .unauthorized)
        }
    }

    @Test("no secret or signature in logs or responses")
    func noSecrets() async throws {
        let (logger, store) = CapturingLogHandler.logger()
        let headers = try await TestServer.run(logger: logger) { client in
            let production = client.production()
            var sent: [String] = []
            for shape in OAuth1Signer.Shape.allCases {
                let header = OAuth1Signer.authorization(
                    method: "GET", target: "/todo", consumerKey: TestServer.productionPublicKey, secret: TestServer.productionPrivateKey,
                    shape: shape, timestamp: Int64(Date().timeIntervalSince1970))
                sent.append(header)
                let bad = try await production.withoutKey.get("/todo?x=1", headers: ["Authorization": header])
                #expect(bad.status == .unauthorized)
                #expect(!bad.text.contains(TestServer.productionPrivateKey))
                let wrong = try await production.oauth1(.get, "/todo", shape: shape, secret: "wrong-secret-wrong")
                #expect(!wrong.text.contains("wrong-secret-wrong"))
            }
            return sent
        }
        let signatures = headers.compactMap { OAuth1Authorization.parse($0)?.signature }
        #expect(signatures.count == 2)
        #expect(store.all.count > 5)
        for line in store.all {
            #expect(!line.fullText.contains(TestServer.productionPrivateKey))
            #expect(!line.fullText.contains("wrong-secret-wrong"))
            for signature in signatures { #expect(!line.fullText.contains(signature)) }
        }
    }
}
