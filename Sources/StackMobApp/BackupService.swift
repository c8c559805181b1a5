import Logging
import ServiceLifecycle
import StackMobCore

/// Scheduled backups (`backups.interval_seconds`): every interval, a consistent copy of each
/// environment's database into the backup directory, keeping the newest `backups.keep`. A
/// failed round is logged and the next one tried; graceful shutdown stops the wait.
struct BackupService: Service, CustomStringConvertible {
    let backend: Backend
    let clock: any ServerClock
    let logger: Logger
    var description: String { "BackupService" }

    func run() async throws {
        let settings = backend.configuration.backups
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(settings.intervalSeconds))
                if Task.isCancelled { break }
                do {
                    let written = try await BackupRounds.round(backend: backend, settings: settings, now: clock.nowMilliseconds())
                    logger.info("Backup written", metadata: ["sm.backup.files": "\(written.joined(separator: ","))"])
                } catch {
                    logger.error("Backup failed", metadata: ["sm.error": "\(error)"])
                }
            }
        }
    }
}
