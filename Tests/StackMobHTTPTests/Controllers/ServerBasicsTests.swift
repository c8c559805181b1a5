import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("Request handling: HEAD /, keys, versions, universal headers")
struct ServerBasicsTests {
    @Test("HEAD / answers 200 with an empty body and needs no credentials")
    func headRoot() async throws {
        try await TestServer.run { client in
            let response = try await client.withoutKey.head("/")
            #expect(response.status == .ok)
            #expect(response.body.isEmpty)
            #expect(response.header("Date") != nil)
            #expect(Int64(response.header("X-StackMob-Time-MS") ?? "") != nil)
        }
    }

    @Test("every response carries Date and X-StackMob-Time-MS close to the server clock")
    func universalHeaders() async throws {
        let clock = ManualClock(1_234_567_890_123)
        try await TestServer.run(clock: clock) { client in
            for response in [try await client.get("/thing"), try await client.get("/thing/missing")] {
                #expect(response.header("X-StackMob-Time-MS") == "1234567890123")
                #expect(response.header("Date") != nil)
                #expect(response.header("Content-Type") == "application/json; charset=utf-8")
            }
        }
    }

    @Test("a request without an API key is refused with a JSON 401")
    func missingKey() async throws {
        try await TestServer.run { client in
            let response = try await client.withoutKey.get("/thing")
            #expect(response.status == .unauthorized)
            #expect(response.error == "Missing X-StackMob-API-Key header or OAuth signature")
        }
    }

    @Test("an unknown API key, or the other environment's key, is refused")
    func wrongKey() async throws {
        try await TestServer.run { client in
            var wrong = client
            wrong.publicKey = "ffffffff-0000-4000-8000-000000000000"
            #expect(try await wrong.get("/thing").status == .unauthorized)
            // The production key does not open the development environment (version 0)…
            var crossed = client
            crossed.publicKey = TestServer.productionPublicKey
            let response = try await crossed.get("/thing")
            #expect(response.status == .unauthorized)
            #expect(response.error == "Invalid API key for this API version")
            // …and the development key does not open production.
            var crossedBack = client.production()
            crossedBack.publicKey = TestServer.developmentPublicKey
            #expect(try await crossedBack.get("/user").status == .unauthorized)
        }
    }

    @Test("the Accept header selects the environment; any version from 1 up is production")
    func versions() async throws {
        try await TestServer.run { client in
            _ = try await client.create("note", ["text": "in development"])
            for version in [1, 2, 7] {
                let response = try await client.production(version: version).get("/user")
                #expect(response.status == .ok, "version \(version)")
            }
            // jQuery may merge several media types into one Accept header.
            let merged = try await client.production().get(
                "/user", headers: ["Accept": "application/json, application/vnd.stackmob+json; version=1"])
            #expect(merged.status == .ok)
            // No version at all means development.
            let bare = try await client.get("/note", headers: ["Accept": "application/json"])
            #expect(bare.status == .ok)
            #expect(bare.array?.count == 1)
        }
    }

    @Test("a MAC signature with an unknown access token is a 401")
    func unknownToken() async throws {
        try await TestServer.run { client in
            let response = try await client.get(
                "/thing", headers: ["Authorization": #"MAC id="nope",ts="1",nonce="n1",mac="AAAA""#])
            #expect(response.status == .unauthorized)
            #expect(response.error != nil)
        }
    }

    @Test("an unknown route is a JSON 404")
    func unknownRoute() async throws {
        try await TestServer.run { client in
            let response = try await client.get("/a/b/c/d/e")
            #expect(response.status == .notFound)
            #expect(response.error == "No such endpoint: GET /a/b/c/d/e")
            #expect(try await client.request(.patch, "/thing/1").status == .notFound)
        }
    }
}
