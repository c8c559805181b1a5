import Logging
import ServiceLifecycle
import StackMobCore

/// Deletes what no one needs any more, in every environment, every few minutes: finished push
/// deliveries older than `push.delivery.retention_days`, MAC/OAuth nonces whose window has
/// passed, login sessions whose access token has expired and whose refresh token is past
/// `refresh_token_lifetime_days`, expired cookie sessions and temporary passwords. With several
/// instances on one database, whichever gets there first does the work; a second sweep finds
/// nothing to delete. (Operator sessions are deleted by each new sign-in; mail outbox rows are
/// the development mailbox and stay.) Once it starts, then hourly, it also removes what uploads a
/// crash cut short left in the file store (`FileStore.sweepLeftovers`), older than an hour.
struct RetentionSweepService: Service, CustomStringConvertible {
    let backend: Backend
    let clock: any ServerClock
    let interval: Duration
    let logger: Logger

    var description: String { "RetentionSweepService" }

    /// How often the file store is walked for leftovers, and how old one must be: uploads
    /// finish within `limits.request_timeout_seconds`, far sooner.
    static let leftoverAge: Duration = .seconds(3600)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var nextFileSweep = ContinuousClock.now
            while !Task.isCancelled {
                if ContinuousClock.now >= nextFileSweep {
                    await sweepFileLeftovers()
                    nextFileSweep = .now + Self.leftoverAge
                }
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { break }
                await sweepOnce()
            }
        }
    }

    func sweepFileLeftovers() async {
        do {
            let removed = try await backend.files.sweepLeftovers(olderThan: Self.leftoverAge)
            if removed > 0 { logger.notice("Removed files of uploads a crash cut short", metadata: ["sm.files": "\(removed)"]) }
        } catch {
            logger.warning("Sweeping the file store for uploads a crash cut short failed", metadata: ["sm.error": "\(error)"])
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
