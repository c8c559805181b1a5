import Logging
import ServiceLifecycle
import StackMobCore

/// Works off the push outbox of every environment (PROTOCOL §11): polls for due deliveries,
/// hands them to the senders, and stops on graceful shutdown. Rows left pending (not yet due,
/// or interrupted mid-send) are picked up after the next start.
public struct PushDeliveryService: Service, CustomStringConvertible {
    let dispatchers: [PushDispatcher]
    let pollInterval: Duration
    let logger: Logger
    static let batchSize = 100

    /// What the service lifecycle logs: never the senders, which hold URLs and keys.
    public var description: String { "PushDeliveryService" }

    public init(dispatchers: [PushDispatcher], pollInterval: Duration, logger: Logger) {
        self.dispatchers = dispatchers
        self.pollInterval = pollInterval
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                for dispatcher in dispatchers {
                    do {
                        // A full batch means more may be due: go on before sleeping.
                        while try await dispatcher.deliverDue(limit: Self.batchSize) == Self.batchSize, !Task.isCancelled {}
                    } catch {
                        if Task.isCancelled { break }
                        logger.error(
                            "Push outbox could not be read or updated",
                            metadata: ["sm.environment": "\(dispatcher.environment.rawValue)", "sm.error": "\(error)"])
                    }
                }
                try? await Task.sleep(for: pollInterval)
            }
        }
    }
}
