import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("CORS (PROTOCOL §2.10)")
struct CORSTests {
    static let allowed = "https://app.example.com"
    static let refused = "https://evil.example.net"

    static func configure(_ configuration: inout StackMobConfiguration) {
        configuration.production.corsAllowedOrigins = [allowed]
    }

    static func preflightHeaders(origin: String, key: String) -> [String: String] {
        [
            "Origin": origin, "Access-Control-Request-Method": "PUT",
            "Access-Control-Request-Headers": "accept, content-type, x-stackmob-api-key-\(key), range",
        ]
    }

    @Test("a pre-flight from an allowed origin names the app through the key header name and is answered without credentials")
    func preflightAllowed() async throws {
        try await TestServer.run(configure: Self.configure) { client in
            let response = try await client.withoutKey.request(
                .options, "/todo/123", headers: Self.preflightHeaders(origin: Self.allowed, key: TestServer.productionPublicKey))
            #expect(response.status == .ok)
            #expect(response.header("Access-Control-Allow-Origin") == Self.allowed)
            #expect(response.header("Access-Control-Allow-Methods") == "GET, POST, PUT, DELETE, HEAD, OPTIONS")
            #expect(response.header("Access-Control-Allow-Headers") == "accept, content-type, x-stackmob-api-key-\(TestServer.productionPublicKey), range")
            #expect(response.header("Access-Control-Max-Age") == "600")
        }
    }

    @Test("a pre-flight from a refused origin, or with no known key, gets no CORS headers")
    func preflightRefused() async throws {
        try await TestServer.run(configure: Self.configure) { client in
            for headers in [
                Self.preflightHeaders(origin: Self.refused, key: TestServer.productionPublicKey),
                Self.preflightHeaders(origin: Self.allowed, key: "00000000-0000-4000-8000-000000000000"),
            ] {
                let response = try await client.withoutKey.request(.options, "/todo", headers: headers)
                #expect(response.status == .forbidden)
                #expect(response.header("Access-Control-Allow-Origin") == nil)
                #expect(response.header("Access-Control-Allow-Methods") == nil)
            }
        }
    }

    @Test("development allows any origin by default; production allows none by default")
    func defaults() async throws {
        try await TestServer.run { client in
            let development = try await client.withoutKey.request(
                .options, "/todo", headers: Self.preflightHeaders(origin: Self.refused, key: TestServer.developmentPublicKey))
            #expect(development.header("Access-Control-Allow-Origin") == Self.refused)
            let production = try await client.withoutKey.request(
                .options, "/todo", headers: Self.preflightHeaders(origin: Self.allowed, key: TestServer.productionPublicKey))
            #expect(production.header("Access-Control-Allow-Origin") == nil)
        }
    }

    @Test("actual responses to an allowed origin carry Allow-Origin and expose Content-Range and Retry-After, errors included")
    func actualAllowed() async throws {
        try await TestServer.run(configure: Self.configure) { client in
            let production = client.production()
            let response = try await production.get("/user", headers: ["Origin": Self.allowed])
            #expect(response.status == .ok)
            #expect(response.header("Access-Control-Allow-Origin") == Self.allowed)
            #expect(response.header("Access-Control-Expose-Headers") == "Content-Range, Retry-After")
            let missing = try await production.get("/user/missing", headers: ["Origin": Self.allowed])
            #expect(missing.status == .notFound)
            #expect(missing.header("Access-Control-Allow-Origin") == Self.allowed)
        }
    }

    @Test("actual responses to a refused origin carry no CORS headers; the request itself still runs")
    func actualRefused() async throws {
        try await TestServer.run(configure: Self.configure) { client in
            let response = try await client.production().get("/user", headers: ["Origin": Self.refused])
            #expect(response.status == .ok)
            #expect(response.header("Access-Control-Allow-Origin") == nil)
            #expect(response.header("Access-Control-Expose-Headers") == nil)
            let noOrigin = try await client.production().get("/user")
            #expect(noOrigin.header("Access-Control-Allow-Origin") == nil)
        }
    }
}
