import Logging
import ServiceLifecycle
import StackMobCore

/// Deletes what no one needs any more, in every environment, every few minutes: finished push
/// deliveries older than `push.delivery.retention_days`, MAC/OAuth nonces whose window has
/// passed, login sessions whose access token has expired and whose refresh token is past
/// `refresh_token_lifetime_days`, expired cookie sessions and temporary passwords. With several
/// instances on one database, whichever gets there first does the work; a second sweep finds
/// nothing to delete. (Operator sessions are deleted by each new sign-in; mail outbox rows are
/// the development mailbox and stay.)
struct RetentionSweepService: Service, CustomStringConvertible {
    let backend: Backend
    let clock: any ServerClock
    let interval: Duration
    let logger: Logger

    var description: String { "RetentionSweepService" }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { break }
                await sweepOnce()
            }
        }
    }

    func sweepOnce() async {
        let days = backend.configuration.push.delivery.retentionDays
        for kind in EnvironmentKind.allCases {
            let environment = backend.environment(kind)
            do {
                let deliveries = days > 0 ? try await environment.push.sweepFinishedDeliveries(olderThan: Int64(days) * 86_400_000) : 0
                let nonces = try await environment.users.nonces.sweep(now: clock.nowMilliseconds())
                let sessions = try await environment.users.sweepExpiredSessions()
                if deliveries + nonces + sessions > 0 {
                    logger.debug(
                        "Retention sweep",
                        metadata: [
                            "sm.environment": "\(kind.rawValue)", "sm.deliveries": "\(deliveries)", "sm.nonces": "\(nonces)",
                            "sm.sessions": "\(sessions)",
                        ])
                }
            } catch {
                logger.warning("Retention sweep failed", metadata: ["sm.environment": "\(kind.rawValue)", "sm.error": "\(error)"])
            }
        }
    }
}
