import GRDB
import Synchronization

/// A few read-only connections of the pool's own, taken without ever waiting, for reads by key
/// on the calling thread (`SQLitePool.readIfFree`).
///
/// The calling thread is a connection's event loop (or a thread of Swift's cooperative pool):
/// if it waited there, every connection on that loop would wait too. GRDB's own pool cannot be
/// asked for a connection without waiting, and one of its connections is handed back only
/// once the task that used it runs again, possibly on the very loop that would be waiting.
/// These connections are outside GRDB's pool: each is taken by setting its bit in `taken`, and
/// when every bit is set the caller goes the asynchronous way instead.
final class SQLiteInlineReaders: Sendable {
    private let connections: [DatabaseQueue]
    /// Bit `i` is set while `connections[i]` is in use.
    private let taken = Atomic<UInt64>(0)
    private let all: UInt64

    /// - Parameter configuration: the pool's; these connections open the file read-only.
    init(path: String, configuration: Configuration, count: Int) throws {
        precondition((1...64).contains(count), "one bit of `taken` per connection")
        var configuration = configuration
        configuration.readonly = true
        connections = try (0..<count).map { _ in try DatabaseQueue(path: path, configuration: configuration) }
        all = count == 64 ? .max : (1 << UInt64(count)) - 1
    }

    var count: Int { connections.count }

    /// `body` on a free connection, on the calling thread; nil, having done nothing, when every
    /// connection is in use.
    func withFreeConnection<T>(_ body: (Database) throws -> T) throws -> T? {
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
        return try connections[index].inDatabase(body)
    }

    func close() throws {
        for connection in connections { try connection.close() }
    }
}
