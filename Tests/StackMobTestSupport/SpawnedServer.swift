import Foundation
import HummingbirdTesting
import Testing

/// The `stackmob-server` binary serving a fresh data directory, as a user starts it: fixed
/// development keys, cheap password hashes, any free port.
public enum SpawnedServer {
    /// Runs `body` against the spawned server, then checks that it is still alive and answering
    /// and that it stops cleanly. `settings` adds `STACKMOB_*` variables for the data directory.
    public static func with(
        settings: @Sendable (_ directory: String) throws -> [String: String] = { _ in [:] },
        _ body: @escaping @Sendable (StackMobClient, ServerProcess) async throws -> Void
    ) async throws {
        try await TestServer.withDataDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let environment = [
                "STACKMOB_PUSH__PORT": "0",
                "STACKMOB_PASSWORDS__PBKDF2_ROUNDS": "1000",
                // As in `TestServer.configuration`: the client connects first and may ask later.
                "STACKMOB_LIMITS__NEW_CONNECTION_TIMEOUT_SECONDS": "60",
                "STACKMOB_ENVIRONMENTS__DEVELOPMENT__PUBLIC_KEY": TestServer.developmentPublicKey,
                "STACKMOB_ENVIRONMENTS__DEVELOPMENT__PRIVATE_KEY": TestServer.developmentPrivateKey,
            ].merging(try settings(directory)) { $1 }
            let server = try ServerProcess(arguments: ["serve", "--port", "0"], directory: directory, environment: environment)
            let port = try #require(try await server.listeningPort(), "server did not start: \(server.log)")
            try await TestClient.withClient(host: "127.0.0.1", port: port) { connection in
                let client = StackMobClient(connection: connection, port: port, publicKey: TestServer.developmentPublicKey)
                try await body(client, server)
                #expect(server.isRunning, "the server stopped: \(server.log.suffix(2_000))")
                #expect(try await client.head("/").status == .ok)
            }
            #expect(await server.terminate() == 0)
        }
    }
}
