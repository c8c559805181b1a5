import Foundation
import HummingbirdTesting
import StackMobCore
import StackMobTestSupport
import Synchronization
import Testing

/// The real binary for the operations tests (docs/operations.md): fixed keys, cheap password
/// hashes, any free port, and the CLI commands run to their exit.
enum OperationsHarness {
    static let environment: [String: String] = [
        "STACKMOB_PUSH__PORT": "0",
        "STACKMOB_PASSWORDS__PBKDF2_ROUNDS": "1000",
        "STACKMOB_ENVIRONMENTS__DEVELOPMENT__PUBLIC_KEY": TestServer.developmentPublicKey,
        "STACKMOB_ENVIRONMENTS__DEVELOPMENT__PRIVATE_KEY": TestServer.developmentPrivateKey,
        "STACKMOB_ENVIRONMENTS__PRODUCTION__PUBLIC_KEY": TestServer.productionPublicKey,
        "STACKMOB_ENVIRONMENTS__PRODUCTION__PRIVATE_KEY": TestServer.productionPrivateKey,
        // As in `TestServer.configuration`: a test client may connect well before it asks, on
        // a machine busy with the other suites.
        "STACKMOB_LIMITS__NEW_CONNECTION_TIMEOUT_SECONDS": "60",
    ]

    /// Polls `condition` until it holds; fails the test after `seconds` (a loaded machine is slow,
    /// but traffic that never flows is a bug).
    static func waitUntil(seconds: Double = 60, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestFailure("the condition did not hold within \(seconds) s") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    static let operatorName = "ci"
    static let operatorPassword = "ci-password-1"

    /// A fixture: a declared `todo` schema, two users, a role and three todos (one owned by alice).
    static let fixture: JSONValue = [
        "operators": ["ci": .string(operatorPassword)],
        "environments": [
            "development": [
                "schemas": ["todo": ["fields": ["title": "string", "done": "boolean", "rank": "float", "tags": "array[string]"]]],
                "users": [["username": "alice", "password": "alice-secret"], ["username": "bob", "password": "bob-secret"]],
                "roles": ["admins": ["alice"]],
                "objects": [
                    "todo": [
                        ["todo_id": "t1", "title": "first", "done": false, "rank": 1.5, "tags": ["a", "b"]],
                        ["todo_id": "t2", "title": "second", "done": true, "rank": 2],
                        ["todo_id": "t3", "title": "owned", "sm_owner": "user/alice"],
                    ]
                ],
            ]
        ],
    ]

    static func writeFixture(_ value: JSONValue = fixture, in directory: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = "\(directory)/fixture.json"
        try Data(JSONWriter.bytes(value)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Starts `serve` with `arguments` and waits for its API port.
    static func serve(_ arguments: [String], in directory: String, environment extra: [String: String] = [:]) async throws -> (ServerProcess, Int) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let server = try ServerProcess(
            arguments: ["serve", "--port", "0"] + arguments, directory: directory, environment: environment.merging(extra) { _, new in new })
        let port = try #require(try await server.listeningPort(), "server did not start: \(server.log)")
        return (server, port)
    }

    /// Runs a CLI command to its end: its exit status and output.
    static func run(_ arguments: [String], in directory: String, environment extra: [String: String] = [:]) async throws -> (Int32, String) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let process = try ServerProcess(arguments: arguments, directory: directory, environment: environment.merging(extra) { _, new in new })
        let status = await process.waitForExit(timeout: .seconds(120))
        return (status, process.log)
    }

    /// `authority`: the `Host` sent; MAC-signed requests sign `localhost` as the test signer does.
    static func withClient<Value: Sendable>(
        port: Int, authority: String? = nil, _ body: @escaping @Sendable (StackMobClient) async throws -> Value
    ) async throws -> Value {
        try await TestClient.withClient(host: "127.0.0.1", port: port) { connection in
            try await body(StackMobClient(connection: connection, port: port, publicKey: TestServer.developmentPublicKey, authority: authority))
        }
    }

    /// Every object of a schema, by primary key, as the API answers them (private key not needed:
    /// the fixture's schemas are open).
    static func list(_ schema: String, primaryKey: String? = nil, client: StackMobClient) async throws -> [JSONObject] {
        let response = try await client.get(
            "/\(schema)", headers: ["X-StackMob-OrderBy": "\(primaryKey ?? "\(schema)_id"):asc", "Range": "objects=0-999"])
        return (response.array ?? []).compactMap(\.objectValue)
    }
}

/// What concurrent traffic records while a reset or a backup runs.
final class TrafficLog: Sendable {
    let stop = Atomic<Bool>(false)
    let reads = Atomic<Int>(0)
    let failures = Mutex<[String]>([])
    let acknowledged = Mutex<[(id: String, at: ContinuousClock.Instant)]>([])

    var isStopped: Bool { stop.load(ordering: .relaxed) }

    /// Runs one traffic loop; an error (a connection lost on a loaded machine) stops all traffic
    /// at once, so that the test's waits end and the error is what the test reports.
    func loop(_ body: @Sendable () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            stop.store(true, ordering: .relaxed)
            throw error
        }
    }
}
