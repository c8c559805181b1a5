import Dispatch

/// Runs work that blocks its thread, waiting for the disk or for another thread, on a thread of
/// its own, never on Swift's shared pool: opening and migrating a SQLite database, closing it once
/// its readers are back, syncing an uploaded file to the disk.
///
/// On Linux that pool is as wide as the machine has cores, and a GRDB read done asynchronously
/// gives its connection back only once its task has resumed on that pool. A close that waited
/// there for readers waited for the very threads the reads needed: with as many closes as cores,
/// nothing on the shared pool ran again (docs/architecture.md, "The event-loop rule").
public enum ThreadOfItsOwn {
    public static func run<T: Sendable>(_ label: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            // A serial queue of its own: dispatch gives it a thread even while every thread of
            // the shared pool is taken.
            DispatchQueue(label: label).async {
                continuation.resume(with: Result(catching: work))
            }
        }
    }
}
