import Synchronization

/// A read run without BEGIN and COMMIT. PostgreSQL runs a statement outside a transaction block
/// in a snapshot of its own, so a read of one statement (an object by id, the common case of
/// `readByKey`) needs no transaction, and saves two of its three round trips. A second statement
/// would see another snapshot: it is refused (`NeedsSnapshot`), and the engine runs the read
/// again from the start in a read transaction (a read changes nothing, so running it twice is
/// safe), whatever the body did with the refusal.
final class SingleStatementRead: Sendable {
    struct NeedsSnapshot: Error {}

    private let statements = Atomic<Int>(0)

    /// Called before each statement: throws from the second on.
    func admit() throws {
        if statements.wrappingAdd(1, ordering: .relaxed).oldValue > 0 { throw NeedsSnapshot() }
    }

    /// Whether the body asked for more than one statement: its outcome must not be used.
    var needsSnapshot: Bool { statements.load(ordering: .relaxed) > 1 }
}
