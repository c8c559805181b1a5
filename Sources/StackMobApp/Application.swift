import Hummingbird
import Logging
import ServiceLifecycle
import StackMobAdapters
import StackMobCore
import StackMobHTTP
import StackMobMail

/// The composition root: the one place that knows every engine, the mailer and the HTTP layer,
/// and puts together the server the configuration describes (`serve`, and the tests' servers).
///
/// It picks the storage engine (`StorageSelection`), SMTP or each environment's outbox, the
/// outbound clients (`OutboundClients`: webhooks, social providers, push, S3) and the services of
/// the chosen engine (scheduled backups of SQLite's files), and hands them to
/// `buildHTTPApplication`, which builds the backend, the routers and the listeners.
///
/// - Parameter onPushServerRunning: called with the push listener's port once it is bound (tests
///   run it on port 0); the other `on…ServerRunning` the same for each environment's HTML5
///   listener, the monitoring listener (`monitoring.port`) and the operator's (`admin.port`).
/// - Parameter metrics: where `/metrics` numbers go; one registry per app (tests run several).
/// - Parameter routeLog: receives every route the API port registers.
/// - Parameter warnings: what start-up warned about the setup (`serve`'s, with the variables it
///   ignored), kept for the console's overview.
public func buildApplication(
    configuration: StackMobConfiguration, clock: any ServerClock = SystemClock(), logger: Logger,
    metrics: ServerMetrics = ServerMetrics(),
    onPushServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
    onHTML5ServerRunning: @escaping @Sendable (EnvironmentKind, Int) async -> Void = { _, _ in },
    onMonitoringServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
    onAdminServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
    routeLog: RouteLog = RouteLog(), warnings: ConfigurationWarnings = ConfigurationWarnings()
) async throws -> some ApplicationProtocol {
    let mailer = SMTPMailer(mail: configuration.mail, logger: logger)
    if let smtp = configuration.mail.smtp.host {
        logger.info("Mail goes over SMTP", metadata: ["sm.smtp.host": "\(smtp)", "sm.smtp.port": "\(configuration.mail.smtp.port)"])
    }
    let storage = try StorageSelection.provider(for: configuration, logger: logger)
    return try await buildHTTPApplication(
        configuration: configuration, storage: storage, mailer: mailer, outbound: try await OutboundClients(configuration: configuration),
        engineServices: { backend in
            configuration.backups.intervalSeconds > 0 ? [BackupService(backend: backend, clock: clock, logger: logger)] : []
        },
        clock: clock, logger: logger, metrics: metrics,
        listening: ListenersBound(
            push: onPushServerRunning, html5: onHTML5ServerRunning, monitoring: onMonitoringServerRunning, admin: onAdminServerRunning),
        routeLog: routeLog, warnings: warnings)
}
