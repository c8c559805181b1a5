import Foundation
import HummingbirdTesting
import StackMobCore
import StackMobTestSupport
import Testing

/// The binary in a CI job that runs a contract-test suite against it: client variables beside
/// the server's, and short token lifetimes.
@Suite("The stackmob-server executable in a test job", .tags(.timing))
struct ExecutableEnvironmentTests {
    static let publicKey = "c2c2c2c2-0000-4000-8000-000000000001"

    /// Spawns the server in a fresh directory with `environment`, hands `body` a client.
    static func withServer(
        environment: [String: String], _ body: @escaping @Sendable (ServerProcess, StackMobClient) async throws -> Void
    ) async throws {
        try await TestServer.withDataDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let server = try ServerProcess(
                arguments: ["serve", "--port", "0"], directory: directory,
                environment: environment.merging(["STACKMOB_PUSH__PORT": "0", "STACKMOB_PASSWORDS__PBKDF2_ROUNDS": "1000"]) { mine, _ in mine })
            let port = try #require(try await server.listeningPort(), "server did not start: \(server.log)")
            try await TestClient.withClient(host: "127.0.0.1", port: port) { connection in
                try await body(server, StackMobClient(connection: connection, port: port, publicKey: publicKey, authority: "localhost"))
            }
            #expect(await server.terminate() == 0)
        }
    }

    @Test("a 1-second access token lifetime starts, is announced as expires_in 1, and the token stops working once it passed")
    func shortTokenLifetime() async throws {
        try await Self.withServer(environment: [
            "STACKMOB_ENVIRONMENTS__DEVELOPMENT__PUBLIC_KEY": Self.publicKey,
            "STACKMOB_ENVIRONMENTS__DEVELOPMENT__ACCESS_TOKEN_LIFETIME_SECONDS": "1",
        ]) { _, client in
            #expect(try await client.post("/user", ["username": "ann", "password": "pw-1"]).status == .created)
            // Taken before the login is sent: the server issues the token after this instant.
            let beforeIssue = ContinuousClock.now
            let login = try await client.postForm(
                "/user/accessToken", [("username", "ann"), ("password", "pw-1"), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")])
            #expect(login.object?["expires_in"] == .integer(1))
            let session = try #require(MACSession(login))
            let now = { Int64(Date().timeIntervalSince1970) }
            let fresh = try await client.signed(.get, "/user/loggedInUser", session: session, ts: now())
            // Only meaningful while the second lasts: a loaded machine (the whole suite in
            // parallel) may take longer than that from the login to the answer of this request.
            // Measured from before the login was sent, so that a slow login cannot eat into it.
            if ContinuousClock.now - beforeIssue < .milliseconds(900) {
                #expect(fresh.status == .ok)
            }
            // The contract-test suite watches the token expire: sleeping is the point here.
            try await Task.sleep(for: .milliseconds(2_100))
            #expect(try await client.signed(.get, "/user/loggedInUser", session: session, ts: now()).status == .unauthorized)
            // Refresh still works and hands out a new 1-second token.
            let refreshed = try await client.postForm(
                "/user/refreshToken", [("refresh_token", session.refreshToken), ("grant_type", "refresh_token"), ("token_type", "mac")])
            #expect(refreshed.status == .ok)
            #expect(refreshed.object?["expires_in"] == .integer(1))
        }
    }

    @Test("STACKMOB_ variables that name no key (a CI job's client settings) are warned about once by name, without their value; the server serves")
    func clientVariables() async throws {
        let secret = "client-side-private-key-value"
        try await Self.withServer(environment: [
            "STACKMOB_ENVIRONMENTS__DEVELOPMENT__PUBLIC_KEY": Self.publicKey,
            "STACKMOB_HOST": "api.example.com", "STACKMOB_PUBLIC_KEY": Self.publicKey, "STACKMOB_PRIVATE_KEY": secret,
        ]) { server, client async throws in
            #expect(try await client.post("/todo", ["title": "served"]).status == .created)
            let warnings = server.log.split(separator: "\n").filter { $0.contains("names no configuration key") }
            for name in ["STACKMOB_HOST", "STACKMOB_PUBLIC_KEY", "STACKMOB_PRIVATE_KEY"] {
                #expect(warnings.filter { $0.contains("sm.variable=\(name) ") || $0.hasSuffix("sm.variable=\(name)") }.count == 1, "\(name): \(warnings)")
            }
            #expect(warnings.count == 3, "\(warnings)")
            #expect(!server.log.contains(secret))
            #expect(!server.log.contains("api.example.com"))
        }
    }
}
