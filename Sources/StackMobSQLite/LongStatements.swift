import Synchronization

/// Statements that ran over the step budget of a read on the calling thread
/// (`SQLiteInlineConnection`), by their SQL text. A read about to run one of them again goes
/// straight to GRDB's pool (`SQLiteTransaction.fetchObjects`) rather than spend its budget first
/// and run again there: a filtered page over ten thousand rows without an index on the filter
/// cost twice its work that way (docs/architecture.md, "The event-loop rule").
///
/// A statement's steps depend on its arguments and on the table, so one read in `probeInterval`
/// of a remembered statement still tries the calling thread, and a run within the budget
/// forgets it. At most `capacity` statements: past that the list starts over, so that queries
/// built from many shapes cannot grow it without bound.
final class LongStatements: Sendable {
    static let capacity = 256
    static let probeInterval = 32

    /// Each remembered statement with the reads sent to the pool since it was last tried here.
    private let statements = Mutex<[String: Int]>([:])
    /// `statements.count`, read without the lock on every page read while nothing is remembered.
    private let count = Atomic<Int>(0)
    private let stopCount = Atomic<Int>(0)

    /// Reads stopped over their budget while running a statement (tests read it).
    var stops: Int { stopCount.load(ordering: .relaxed) }

    var isEmpty: Bool { count.load(ordering: .relaxed) == 0 }

    /// `sql` ran over the budget.
    func remember(_ sql: String) {
        stopCount.add(1, ordering: .relaxed)
        statements.withLock { statements in
            if statements.count >= Self.capacity { statements.removeAll(keepingCapacity: true) }
            statements[sql] = 0
            count.store(statements.count, ordering: .relaxed)
        }
    }

    /// Whether a read about to run `sql` on the calling thread should go to the pool at once.
    func sendsToPool(_ sql: String) -> Bool {
        guard count.load(ordering: .relaxed) > 0 else { return false }
        return statements.withLock { statements in
            guard let sent = statements[sql] else { return false }
            if sent + 1 >= Self.probeInterval {
                statements[sql] = 0
                return false
            }
            statements[sql] = sent + 1
            return true
        }
    }

    /// `sql` ran to its end within the budget.
    func forget(_ sql: String) {
        guard count.load(ordering: .relaxed) > 0 else { return }
        statements.withLock { statements in
            guard statements.removeValue(forKey: sql) != nil else { return }
            count.store(statements.count, ordering: .relaxed)
        }
    }
}
