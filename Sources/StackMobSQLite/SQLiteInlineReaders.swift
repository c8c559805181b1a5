import GRDB
import Synchronization

/// A few read-only connections of the pool's own, taken without ever waiting, for reads on the
/// calling thread (`SQLitePool.read` and `readByKey`).
///
/// The calling thread is a connection's event loop (or a thread of Swift's cooperative pool):
/// if it waited there, every connection on that loop would wait too. GRDB's own pool cannot be
/// asked for a connection without waiting, and one of its connections is handed back only
/// once the task that used it runs again, possibly on the very loop that would be waiting.
/// These connections are outside GRDB's pool: each is taken by setting its bit in `taken`, and
/// when every bit is set the caller goes the asynchronous way instead.
final class SQLiteInlineReaders: Sendable {
    private let connections: [SQLiteInlineConnection]
    /// Bit `i` is set while `connections[i]` is in use.
    private let taken = Atomic<UInt64>(0)
    private let all: UInt64
    /// The statements that ran over a read's budget here.
    let longStatements: LongStatements

    /// - Parameter configuration: the pool's; these connections open the file read-only.
    init(path: String, configuration: Configuration, count: Int) throws {
        precondition((1...64).contains(count), "one bit of `taken` per connection")
        var configuration = configuration
        configuration.readonly = true
        // What GRDB's errors and `Database.description` call them.
        configuration.label = Self.label
        let longStatements = LongStatements()
        self.longStatements = longStatements
        connections = try (0..<count).map { _ in try SQLiteInlineConnection(path: path, configuration: configuration, longStatements: longStatements) }
        all = count == 64 ? .max : (1 << UInt64(count)) - 1
    }

    static let label = "StackMob.inline"

    var count: Int { connections.count }

    /// `body` on a free connection, on the calling thread, in a snapshot
    /// (`SQLiteInlineConnection.read`); nil, having done nothing, when every connection is in
    /// use, and nil too when the body ran over `limit` periods of SQLite's steps and was stopped.
    func read<T>(limit: Int, _ body: (Database) throws -> T) throws -> T? {
        var current = taken.load(ordering: .relaxed)
        var index = 0
        while true {
            let free = all & ~current
            guard free != 0 else { return nil }
            index = free.trailingZeroBitCount
            // Acquiring and, below, releasing: the connection passes from thread to thread, and
            // each user must see what the one before left in it.
            let (exchanged, original) = taken.compareExchange(
                expected: current, desired: current | (1 << UInt64(index)), ordering: .acquiring)
            if exchanged { break }
            current = original
        }
        defer { taken.bitwiseAnd(~(1 << UInt64(index)), ordering: .releasing) }
        return try connections[index].read(limit: limit, body)
    }

    func close() throws {
        for connection in connections { try connection.close() }
    }
}
