import Logging
import ServiceLifecycle
import StackMobCore

/// Closes the databases when the application stops. Listed before the HTTP server among the
/// application's services, it is shut down after the server has drained its requests (a service
/// group stops its services in reverse order). Closing checkpoints the WAL, and releases the
/// files at once: a process that runs many servers (the test suite) would otherwise keep every
/// database it ever opened.
struct BackendService: Service, CustomStringConvertible {
    let backend: Backend
    let logger: Logger

    /// What the service lifecycle logs: never the backend itself, which holds the keys.
    var description: String { "BackendService" }

    func run() async throws {
        try? await gracefulShutdown()
        do {
            try await backend.close()
        } catch {
            logger.error("Closing the databases failed", metadata: ["sm.error": "\(error)"])
        }
    }
}
