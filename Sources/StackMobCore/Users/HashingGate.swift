/// How many password hashes run at once: as many as the machine has cores, the rest wait their
/// turn, logins before sign-ups. A hash is CPU work on purpose (PBKDF2, `PasswordHasher`); without
/// a bound, a few requests carrying many passwords would take every core, and every login would
/// wait behind them. A task cancelled while it waits (its request past its deadline, or its
/// client gone) leaves the queue without hashing.
public actor HashingGate {
    /// Who waits: a login checks one password for a user at the door, a sign-up or a password
    /// change writes one.
    public enum Priority: Sendable {
        case login, write
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Bool, Never>
    }

    public let width: Int
    private var running = 0
    private var logins: [Waiter] = []
    private var writes: [Waiter] = []
    private var nextID: UInt64 = 0
    /// Ids handed out whose task has not yet asked to enter.
    private var reserved: Set<UInt64> = []
    /// Reserved ids whose task was cancelled before it asked to enter.
    private var cancelledEarly: Set<UInt64> = []

    public init(width: Int) {
        self.width = max(1, width)
    }

    /// Runs `work` when a place is free; nil when the task was cancelled before its turn.
    public nonisolated func run<Value: Sendable>(_ priority: Priority, _ work: @escaping @Sendable () -> Value) async -> Value? {
        guard !Task.isCancelled else { return nil }
        let id = await reserveID()
        let admitted = await withTaskCancellationHandler {
            await enter(id: id, priority: priority)
        } onCancel: {
            Task { await self.cancel(id) }
        }
        guard admitted else { return nil }
        // Detached: the derivation runs on Swift's shared pool, never on the caller's executor,
        // which may be an HTTP connection's event loop.
        let value = await Task.detached(operation: work).value
        await release()
        return value
    }

    private func reserveID() -> UInt64 {
        nextID += 1
        reserved.insert(nextID)
        return nextID
    }

    private func enter(id: UInt64, priority: Priority) async -> Bool {
        reserved.remove(id)
        if cancelledEarly.remove(id) != nil { return false }
        if running < width {
            running += 1
            return true
        }
        return await withCheckedContinuation { continuation in
            let waiter = Waiter(id: id, continuation: continuation)
            switch priority {
            case .login: logins.append(waiter)
            case .write: writes.append(waiter)
            }
        }
    }

    private func release() {
        if let next = logins.isEmpty ? (writes.isEmpty ? nil : writes.removeFirst()) : logins.removeFirst() {
            // The place passes to the next waiter: `running` stays the same.
            next.continuation.resume(returning: true)
        } else {
            running -= 1
        }
    }

    private func cancel(_ id: UInt64) {
        if let index = logins.firstIndex(where: { $0.id == id }) {
            logins.remove(at: index).continuation.resume(returning: false)
        } else if let index = writes.firstIndex(where: { $0.id == id }) {
            writes.remove(at: index).continuation.resume(returning: false)
        } else if reserved.contains(id) {
            // Not queued yet: refused when it arrives.
            cancelledEarly.insert(id)
        }
    }
}
