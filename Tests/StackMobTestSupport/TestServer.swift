import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import StackMobApp
import StackMobCore
import StackMobHTTP

/// Runs the real application, over real HTTP on a loopback port, on a fresh data directory.
public enum TestServer {
    public static let developmentPublicKey = "d0d0d0d0-0000-4000-8000-000000000001"
    public static let developmentPrivateKey = "d0d0d0d0-0000-4000-8000-00000000000f"
    public static let productionPublicKey = "b1b1b1b1-0000-4000-8000-000000000001"
    public static let productionPrivateKey = "b1b1b1b1-0000-4000-8000-00000000000f"

    /// A configuration with fixed keys and a cheap password hash (tests create many users; the
    /// production round count is covered by its own test).
    public static func configuration(dataDirectory: String) -> StackMobConfiguration {
        var configuration = StackMobConfiguration()
        configuration.dataDirectory = dataDirectory
        configuration.port = 0
        // Parallel tests must not fight over the push host's default port.
        configuration.push.port = 0
        configuration.passwordRounds = 1_000
        // The test client connects when the server starts and may send its first request much
        // later, on a machine busy with the other suites: the idle timeout applies instead.
        configuration.newConnectionTimeoutSeconds = configuration.idleTimeoutSeconds
        configuration.development.publicKey = developmentPublicKey
        configuration.development.privateKey = developmentPrivateKey
        configuration.production.publicKey = productionPublicKey
        configuration.production.privateKey = productionPrivateKey
        configuration.http1Channel = http1Channel
        if let url = postgreSQLURL {
            configuration.storage.engine = .postgresql
            configuration.storage.postgresql.url = url
            configuration.storage.postgresql.poolSize = 2
            // Dozens of servers start at once in a parallel test run.
            configuration.storage.postgresql.connectTimeoutSeconds = 60
            // Each data directory gets its own schemas, so tests run side by side on one database
            // and a restart on the same directory finds its data again.
            configuration.storage.postgresql.schemaPrefix = schemaPrefix(for: dataDirectory)
        }
        return configuration
    }

    /// On PostgreSQL a start creates and migrates two schemas; a parallel test run starts
    /// dozens of servers at once, so starts go a few at a time rather than all time out together.
    static let startGate = StartGate(width: 4)

    /// Set by the `postgresql` tier of scripts/test.sh (docs/testing.md): the whole suite again
    /// on PostgreSQL.
    public static let postgreSQLURL: String? = ProcessInfo.processInfo.environment["STACKMOB_TEST_POSTGRESQL_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// The same database through its Unix socket (`?host=<directory>`), set with a throw-away
    /// cluster of scripts/pg_cluster.py.
    public static let postgreSQLSocketURL: String? = ProcessInfo.processInfo.environment["STACKMOB_TEST_POSTGRESQL_SOCKET_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// Set by the `hummingbird` tier of scripts/test.sh (docs/testing.md): the whole suite again
    /// with every listener on Hummingbird's `HTTP1Channel` (`listen.http1_channel`).
    public static let http1Channel: StackMobConfiguration.HTTP1ChannelKind = {
        guard let name = ProcessInfo.processInfo.environment["STACKMOB_TEST_HTTP1_CHANNEL"], !name.isEmpty else { return .native }
        guard let kind = StackMobConfiguration.HTTP1ChannelKind(rawValue: name.lowercased()) else {
            fatalError("STACKMOB_TEST_HTTP1_CHANNEL must be native or hummingbird, not \(name)")
        }
        return kind
    }()

    /// The suite runs on Hummingbird's channel: for `.disabled(if:)` on tests of what only the
    /// server's own connection layer does.
    public static var onHummingbirdChannel: Bool { http1Channel == .hummingbird }

    /// `t` and 16 hex digits of the directory's name hash: a valid, short schema prefix.
    public static func schemaPrefix(for dataDirectory: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in dataDirectory.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return "t" + String(hash, radix: 16)
    }

    /// The storage the configuration names, as the executable opens it (admin tasks in tests).
    public static func storage(_ configuration: StackMobConfiguration) throws -> any StorageProvider {
        try StorageSelection.provider(for: configuration, logger: quietLogger)
    }

    /// How a test's requests reach the application.
    public enum Transport: String, CaseIterable, Sendable {
        /// Over real HTTP on a loopback port, through the connection layer, as clients send them:
        /// what catches framing, header case and the connection's limits. The default.
        case live
        /// Straight to the application's responder, in the test's process, with no socket and no
        /// connection layer (Hummingbird's `.router` test framework): for tables of routes and
        /// permissions, beside their live run, never instead of it.
        case inProcess
    }

    /// Starts the server on a new temporary data directory, hands `body` a client, stops the
    /// server and removes the directory.
    public static func run<Value: Sendable>(
        configure: (inout StackMobConfiguration) -> Void = { _ in },
        clock: any ServerClock = SystemClock(),
        logger: Logger = quietLogger,
        transport: Transport = .live,
        _ body: @Sendable (StackMobClient) async throws -> Value
    ) async throws -> Value {
        try await withDataDirectory { directory in
            var configuration = configuration(dataDirectory: directory)
            configure(&configuration)
            return try await run(configuration: configuration, clock: clock, logger: logger, transport: transport, body)
        }
    }

    /// Starts the server with exactly `configuration` (used to restart on the same directory).
    public static func run<Value: Sendable>(
        configuration: StackMobConfiguration,
        clock: any ServerClock = SystemClock(),
        logger: Logger = quietLogger,
        transport: Transport = .live,
        _ body: @Sendable (StackMobClient) async throws -> Value
    ) async throws -> Value {
        let app = try await startGate.passing(when: configuration.storage.engine == .postgresql) {
            try await buildApplication(configuration: configuration, clock: clock, logger: logger)
        }
        return try await app.test(transport == .live ? .live : .router) { client in
            try await body(StackMobClient(client: client, publicKey: configuration.development.publicKey))
        }
    }

    public static func withDataDirectory<Value>(_ body: (String) async throws -> Value) async throws -> Value {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stackmob-test-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await body(directory)
    }

    public static let quietLogger: Logger = {
        var logger = Logger(label: "stackmob-test")
        logger.logLevel = .critical
        return logger
    }()
}

/// At most `width` bodies at a time; the others wait their turn.
actor StartGate {
    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) {
        available = width
    }

    nonisolated func passing<T: Sendable>(when gated: Bool, _ body: () async throws -> T) async throws -> T {
        guard gated else { return try await body() }
        await enter()
        do {
            let value = try await body()
            await leave()
            return value
        } catch {
            await leave()
            throw error
        }
    }

    private func enter() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func leave() {
        if waiting.isEmpty {
            available += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
