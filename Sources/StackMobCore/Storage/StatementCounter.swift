import Synchronization

/// Counts the SQL statements a storage engine runs: how tests prove that a read takes a fixed
/// number of statements (expansion loads a level of related objects in one statement per schema).
public final class StatementCounter: Sendable {
    private let count = Mutex(0)

    public init() {}

    public var value: Int { count.withLock { $0 } }

    public func increment() { count.withLock { $0 += 1 } }

    public func reset() { count.withLock { $0 = 0 } }
}
