import Logging
import PostgresNIO
import StackMobCore
import Synchronization

/// Hears when a schema changes in this environment, so that a request need not ask the database
/// for the schema version while nothing changed (docs/operations.md, "More than one instance").
///
/// One connection of its own, outside the pool, runs `LISTEN` on a channel named after the
/// environment's PostgreSQL schema; every transaction that bumps `_sm_schema_version` also
/// notifies it (`PostgresTransaction.bumpSchemaVersion`), and PostgreSQL delivers the
/// notification once that transaction has committed. `generation` changes with each
/// notification and each new connection (notifications sent while none was listening are lost);
/// it is nil while nothing listens, and every request then checks the version as before
/// (`PostgresStorageEngine.mayHaveSchemaChanges`).
///
/// Like the pool, it runs in a task of its own, started here and cancelled in `close()`. The
/// connection is idle but for notifications and a `SELECT 1` every 30 s, which finds a
/// connection a firewall dropped in silence: an instance must not believe it listens when
/// nothing can reach it.
final class PostgresSchemaListener: Sendable {
    private let state: ListenerState
    private let runner: Task<Void, Never>

    init(settings: PostgreSQLSettings, channel: String, logger: Logger) {
        let state = ListenerState()
        self.state = state
        runner = Task { await Self.listen(settings: settings, channel: channel, state: state, logger: logger) }
    }

    /// Changes whenever the schemas may have changed; nil while nothing listens.
    var generation: UInt64? { state.generation }

    /// Whether the connection listens (tests wait for it).
    var isListening: Bool { state.generation != nil }

    /// Tests stand for a notification still on its way: while set, notifications are dropped.
    func dropNotifications(_ drop: Bool) {
        state.dropsNotifications.store(drop, ordering: .relaxed)
    }

    func close() {
        runner.cancel()
    }

    private static func listen(settings: PostgreSQLSettings, channel: String, state: ListenerState, logger: Logger) async {
        var pause = Duration.seconds(1)
        var lostSince: ContinuousClock.Instant?
        while !Task.isCancelled {
            var connection: PostgresConnection?
            do {
                var configuration = try PostgresURL.connectionConfiguration(settings)
                configuration.options.connectTimeout = .seconds(Int64(settings.connectTimeoutSeconds))
                // Named in `pg_stat_activity` for operators (PostgreSQL cuts it at 63 bytes).
                configuration.options.additionalStartupParameters = [("application_name", "stackmob-server listener \(channel)")]
                let listening = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                connection = listening
                try await listening.listen(on: channel) { notifications in
                    state.listening()
                    pause = .seconds(1)
                    if lostSince != nil {
                        logger.notice("The schema listener is back; requests no longer ask for the schema version", metadata: ["sm.channel": "\(channel)"])
                        lostSince = nil
                    }
                    try await withThrowingDiscardingTaskGroup { group in
                        group.addTask {
                            for try await _ in notifications { state.notified() }
                            throw CancellationError()
                        }
                        group.addTask {
                            while true {
                                try await Task.sleep(for: .seconds(30))
                                try await withDeadline(seconds: 10) { _ = try await listening.query("SELECT 1", logger: logger).collect() }
                            }
                        }
                    }
                }
            } catch {
                if !Task.isCancelled && lostSince == nil {
                    logger.warning(
                        "The schema listener has no connection; each request asks for the schema version until it is back",
                        metadata: ["sm.channel": "\(channel)", "sm.error": "\(String(reflecting: error))"])
                    lostSince = .now
                }
            }
            state.lost()
            try? await connection?.close()
            guard (try? await Task.sleep(for: pause)) != nil else { return }
            pause = min(pause * 2, .seconds(30))
        }
    }
}

/// What the listener's task shares with requests.
private final class ListenerState: Sendable {
    private struct Counts {
        var listening = false
        var generation: UInt64 = 0
    }

    private let counts = Mutex(Counts())
    let dropsNotifications = Atomic<Bool>(false)

    var generation: UInt64? {
        counts.withLock { $0.listening ? $0.generation : nil }
    }

    /// A new connection: what was sent while none listened is unknown.
    func listening() {
        counts.withLock {
            $0.listening = true
            $0.generation &+= 1
        }
    }

    func notified() {
        guard !dropsNotifications.load(ordering: .relaxed) else { return }
        counts.withLock { $0.generation &+= 1 }
    }

    func lost() {
        counts.withLock { $0.listening = false }
    }
}
