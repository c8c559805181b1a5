import Synchronization

/// Counts the SQL statements a storage engine runs: how tests prove that a read takes a fixed
/// number of statements (expansion loads the related objects of a schema in one statement).
public final class StatementCounter: Sendable {
    private let count = Mutex(0)

    public init() {}

    public var value: Int { count.withLock { $0 } }

    public func increment() { count.withLock { $0 += 1 } }

    public func reset() { count.withLock { $0 = 0 } }
}
