import Logging
import NIOPosix
import NIOSSL
import PostgresNIO
import StackMobCore
import Synchronization

/// One environment's connection pool, its connections pinned to the environment's PostgreSQL
/// schema (`search_path` in the start-up message) and to the configured `statement_timeout`.
///
/// The pool is one `PostgresClient` per event loop (`PostgresLane`), each holding its share of
/// `pool_size`. A request runs on its socket's event loop (`EventLoopTaskExecutor`), and a
/// connection on that same loop answers it there: writing the query, reading its rows and
/// resuming the request take no hop to another thread, where a connection on another loop
/// costs a wake-up of that loop and one back for each (docs/benchmarks.md, "Figures behind
/// design choices"). A request whose loop's connections are all leased borrows from another
/// loop's share when one is free there, so a burst on one loop still has the whole pool.
///
/// `PostgresClient` serves requests only while its `run()` is running. The storage is opened
/// before the application's service group exists (start-up migrations, and CLI tasks that never
/// serve), so the database runs its own clients' task and their keep-alive beside it, and cancels
/// both in `close()`: the engine's only unstructured tasks, with a clear owner and end.
final class PostgresPool: Sendable {
    let logger: Logger
    private let lanes: [PostgresLane]
    private let runner: Task<Void, Never>
    private let keepAliveRounds: Task<Void, Never>

    init(settings: PostgreSQLSettings, schema: String, logger: Logger) throws {
        var configuration = try PostgresURL.clientConfiguration(settings)
        configuration.options.additionalStartupParameters = [
            ("search_path", schema),
            ("statement_timeout", "\(settings.statementTimeoutSeconds * 1000)"),
            ("application_name", "stackmob-server"),
        ]
        configuration.options.connectTimeout = .seconds(Int64(settings.connectTimeoutSeconds))
        // No timer per release. For a connection released idle, the pool arms a keep-alive timer
        // and, above its minimum, an idle-timeout timer, and cancels them when the connection is
        // leased again; but a cancelled `Task.sleep` holds its task until the deadline passes.
        // Under a steady load that is a few KiB per request kept for 30 and 60 s, hundreds of MiB
        // and a noticeable share of a read's CPU (docs/benchmarks.md, "Figures behind design
        // choices"). So each lane keeps all its connections (minimum = maximum, a fixed-size pool
        // as HikariCP recommends) and `keepAlive` below does the keep-alive, one timer for the
        // whole pool.
        configuration.options.keepAliveBehavior = nil
        // The loops the HTTP server runs requests on: Hummingbird's default group.
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        let lanes = PostgresLane.sizes(poolSize: settings.poolSize, loops: loops.count).enumerated().map { index, size in
            var share = configuration
            share.options.minimumConnections = size
            share.options.maximumConnections = size
            return PostgresLane(loop: loops[index], size: size, configuration: share, logger: logger)
        }
        self.lanes = lanes
        self.logger = logger
        // `run()` in a task of its own, started first and with nothing before it: start-up leases
        // a connection as soon as this returns, and a lease made before `run()` has begun waits
        // for it but makes postgres-nio log a warning. With the keep-alive's task group set up
        // first in the same task, a start on PostgreSQL printed it now and then.
        let runner = Task {
            await withDiscardingTaskGroup { group in
                for lane in lanes { group.addTask { await lane.client.run() } }
            }
        }
        self.runner = runner
        keepAliveRounds = Task {
            await withDiscardingTaskGroup { group in
                group.addTask { await Self.keepAlive(lanes, logger: logger) }
                // The keep-alive ends with the clients.
                await runner.value
                group.cancelAll()
            }
        }
    }

    /// Every 30 s, as many `SELECT 1` as a lane holds connections, all at once, so that most
    /// idle connections run one (the pool hands out idle connections first; one released early
    /// may take a second): a connection a firewall or NAT dropped in silence fails there, and
    /// the pool replaces it, rather than under a request; and one that works stays known to
    /// them. Connections busy at that moment show they work anyway.
    private static func keepAlive(_ lanes: [PostgresLane], logger: Logger) async {
        while (try? await Task.sleep(for: .seconds(30))) != nil {
            await withDiscardingTaskGroup { group in
                for lane in lanes {
                    for _ in 0..<lane.size {
                        group.addTask { _ = try? await lane.client.withConnection { try await $0.query("SELECT 1", logger: logger) } }
                    }
                }
            }
        }
    }

    func close() {
        keepAliveRounds.cancel()
        runner.cancel()
    }

    /// A connection for `body`'s lifetime, from the lane `PostgresLane.choose` picks: the
    /// caller's own loop's where it can.
    func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let lane = PostgresLane.choose(from: lanes, current: MultiThreadedEventLoopGroup.currentEventLoop)
        lane.leases.add(1, ordering: .relaxed)
        defer { lane.leases.subtract(1, ordering: .relaxed) }
        return try await lane.client.withConnection { connection in try await body(connection) }
    }

    // MARK: - Statements

    /// Every row of the statement's result, collected on the connection's event loop as they
    /// arrive: the future-based `query` hands them over in one array, where the `async` one
    /// builds a back-pressured row sequence (its producer, source and iterator) for every
    /// statement, only for `collect()` to drain it.
    @discardableResult
    func execute(_ statement: PostgresStatement, on connection: PostgresConnection) async throws -> [PostgresRow] {
        try await rows(of: statement.query, on: connection)
    }

    /// Each row of the statement's result handed to `eachRow` as it arrives, on the connection's
    /// event loop, and none kept: for results whose rows become something smaller.
    func execute(_ statement: PostgresStatement, on connection: PostgresConnection, eachRow: @escaping @Sendable (PostgresRow) throws -> Void)
        async throws
    {
        let result: EventLoopFuture<PostgresQueryMetadata> = connection.query(statement.query, logger: logger, eachRow)
        _ = try await result.get()
    }

    func execute(_ sql: String, on connection: PostgresConnection) async throws {
        _ = try await rows(of: PostgresQuery(unsafeSQL: sql), on: connection)
    }

    private func rows(of query: PostgresQuery, on connection: PostgresConnection) async throws -> [PostgresRow] {
        let result: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: logger)
        return try await result.get().rows
    }

    /// The statement's rows up to the one whose values take the rows kept past `byteLimit`
    /// bytes (`ObjectQuery.byteLimit`), and whether it stopped there. The rows after it are
    /// not kept: postgres-nio reads them from the connection and drops them, so the connection
    /// is ready for the next statement of the transaction. Each row is made random-access as it
    /// arrives, which its decoder needs anyway (`PostgresRowDecoder.object(from:extra:)`), and
    /// only its variable-length values are measured: a `PostgresCell` per value, walked on the
    /// connection's loop, cost a page a tenth more instructions (docs/benchmarks.md).
    func execute(_ statement: PostgresStatement, on connection: PostgresConnection, byteLimit: Int) async throws -> (
        rows: [PostgresRandomAccessRow], endedAtByteLimit: Bool, bytes: Int
    ) {
        let kept = LimitedRows(byteLimit: byteLimit)
        let result: EventLoopFuture<PostgresQueryMetadata> = connection.query(statement.query, logger: logger) { row in
            if !kept.keep(PostgresRandomAccessRow(row)) { throw LimitedRows.Full() }
        }
        do {
            _ = try await result.get()
            return (kept.rows, false, kept.bytes)
        } catch where kept.full {
            // `Full`, or the cancellation it caused (`queryCancelled`), whichever postgres-nio
            // reports first.
            return (kept.rows, true, kept.bytes)
        }
    }

    /// The rows one statement keeps within a byte limit.
    private final class LimitedRows: Sendable {
        struct Full: Error {}

        private struct State {
            var rows: [PostgresRandomAccessRow] = []
            var bytes = 0
            /// The columns whose values vary in length, and the bytes of the others, from the
            /// first row (every row of a statement has the same columns).
            var measured: (columns: [Int], fixedBytes: Int)?
        }

        let byteLimit: Int
        private let state = Mutex(State())

        init(byteLimit: Int) {
            self.byteLimit = byteLimit
        }

        var rows: [PostgresRandomAccessRow] { state.withLock { $0.rows } }
        /// Whether a row took the rows kept past the limit.
        var full: Bool { bytes > byteLimit }
        /// The bytes of the rows kept.
        var bytes: Int { state.withLock { $0.bytes } }

        /// Keeps `row`; false once the rows kept are past the limit.
        func keep(_ row: PostgresRandomAccessRow) -> Bool {
            state.withLock { state in
                let measured = state.measured ?? Self.measure(row)
                state.measured = measured
                var bytes = measured.fixedBytes
                for column in measured.columns { bytes += row[data: column].value?.readableBytes ?? 0 }
                state.rows.append(row)
                state.bytes += bytes
                return state.bytes <= byteLimit
            }
        }

        /// Numbers and booleans count eight bytes each; every other column by its value. The
        /// count PostgreSQL adds (`RowsWithinBytes`) is not the object's.
        private static func measure(_ row: PostgresRandomAccessRow) -> (columns: [Int], fixedBytes: Int) {
            let fixed: [PostgresDataType] = [.bool, .int2, .int4, .int8, .float4, .float8]
            var columns: [Int] = []
            var fixedBytes = 0
            for (column, cell) in row.enumerated() where cell.columnName != RowsWithinBytes.bytesBefore {
                if fixed.contains(cell.dataType) { fixedBytes += 8 } else { columns.append(column) }
            }
            return (columns, fixedBytes)
        }
    }

    /// One statement outside any explicit transaction (it is its own).
    @discardableResult
    func execute(_ statement: PostgresStatement) async throws -> [PostgresRow] {
        try await withConnection { connection in try await self.execute(statement, on: connection) }
    }

    // MARK: - Transactions

    /// A read-only snapshot: every statement of `body` sees the same committed state.
    func readTransaction<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection { connection in try await readTransaction(on: connection, body) }
    }

    /// A read-only snapshot on a connection already leased.
    func readTransaction<T: Sendable>(on connection: PostgresConnection, _ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", on: connection, body)
    }

    /// A read-write transaction, run again from the start when PostgreSQL chose it as the victim
    /// of a deadlock or a serialization failure (both leave nothing behind), so that callers see
    /// the same one-writer-at-a-time outcome as on SQLite.
    func writeTransaction<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await withConnection { connection in
                    try await transaction("BEGIN ISOLATION LEVEL READ COMMITTED", on: connection, body)
                }
            } catch let error as PSQLError where attempt < 20 && PostgresErrors.isRetryable(error) {
                logger.notice(
                    "PostgreSQL rolled a write transaction back; running it again",
                    metadata: ["sm.sqlstate": "\(PostgresErrors.sqlState(error) ?? "")", "sm.attempt": "\(attempt + 1)"])
                // Short, growing, jittered pauses: the transactions that collided retry apart.
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 * attempt))))
            }
        }
    }
}

extension PostgresPool {
    /// `begin`, the body, then COMMIT; ROLLBACK when the body throws.
    fileprivate func transaction<T: Sendable>(
        _ begin: String, on connection: PostgresConnection, _ body: @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await execute(begin, on: connection)
        do {
            let value = try await body(connection)
            try await execute("COMMIT", on: connection)
            return value
        } catch {
            try? await execute("ROLLBACK", on: connection)
            throw error
        }
    }

    /// A fixed statement of the internal tables with its values, on `connection` when given
    /// (inside a transaction), else on its own.
    @discardableResult
    func run(_ sql: String, _ values: [StoredValue], on connection: PostgresConnection? = nil) async throws -> [PostgresRow] {
        let statement = PostgresStatement(sql, values)
        if let connection { return try await execute(statement, on: connection) }
        return try await execute(statement)
    }
}

/// What the server's error codes mean to the engine.
enum PostgresErrors {
    static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// `40001` serialization failure, `40P01` deadlock detected.
    static func isRetryable(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return state == "40001" || state == "40P01"
    }

    /// `55P03`: a lock not available (`LOCK TABLE … NOWAIT`, or past `lock_timeout`).
    static let lockNotAvailable = "55P03"

    static func isUniqueViolation(_ error: any Error) -> Bool {
        sqlState(error) == "23505"
    }
}
