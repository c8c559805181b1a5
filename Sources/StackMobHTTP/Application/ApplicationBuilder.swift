import Hummingbird
import Logging
import ServiceLifecycle
import StackMobCore

/// Builds the HTTP application around what the composition root chose (`StackMobApp`'s
/// `buildApplication`: the storage engine, the mailer, the engine's own services such as
/// scheduled backups): opens the backend (databases, keys), builds the routers and wraps them in
/// the listeners. This module imports no engine and no mailer.
///
/// - Parameter storage: the engine the configuration names.
/// - Parameter mailer: SMTP when configured; nil = each environment's outbox.
/// - Parameter outbound: webhooks, social providers, push transports and the file store; shut
///   down with the application (or here, when start-up fails).
/// - Parameter engineServices: services of the chosen engine, made once the backend is open
///   (scheduled backups), run and stopped with the application.
/// - Parameter metrics: where `/metrics` numbers go; one registry per app (tests run several).
/// - Parameter listening: told the port of each listener of its own once it is bound.
/// - Parameter routeLog: receives every route the API port registers (`buildRouter`).
/// - Parameter warnings: what start-up warned about the setup, kept for the console's overview;
///   the composition root's, with the warnings it logged before this.
public func buildHTTPApplication(
    configuration: StackMobConfiguration, storage: any StorageProvider, mailer: (any Mailer)?, outbound: any OutboundGateways,
    engineServices: @Sendable (Backend) -> [any Service] = { _ in [] },
    clock: any ServerClock = SystemClock(), logger: Logger,
    metrics: ServerMetrics = ServerMetrics(), listening: ListenersBound = ListenersBound(), routeLog: RouteLog = RouteLog(),
    warnings: ConfigurationWarnings = ConfigurationWarnings()
) async throws -> some ApplicationProtocol {
    // Read before anything is opened: a bad fixture file stops start-up like a bad configuration.
    let fixtures: FixtureLoader
    do {
        fixtures = FixtureLoader(fixture: try configuration.fixturesFile.map { try Fixture.load(path: $0) })
    } catch {
        await outbound.shutdown()
        throw error
    }
    let backend: Backend
    let pushServices: [any Service]
    do {
        backend = try await Backend.open(
            configuration, storage: storage, clock: clock, mailer: mailer,
            fileStore: outbound.fileStore, instrument: { metrics.instrument($0, $1) }, logger: logger, warnings: warnings)
        try await fixtures.load(into: backend, logger: logger)
        pushServices = try await makePushServices(backend: backend, clock: clock, transport: outbound.push, logger: logger, onServerRunning: listening.push)
    } catch {
        // The app never runs, so its services never shut the clients down.
        await outbound.shutdown()
        throw error
    }
    logKeys(of: backend, logger: logger)
    if try await !backend.operators.hasOperators() {
        logger.notice("Admin API closed: no operator account; open it with: stackmob-server admin add <name>")
    }
    let fileOrigin = StoredFileOrigin(configuration: configuration)
    // The API port's connections, counted by its listener and shown by the console's overview.
    let connections = makeConnectionCounter(configuration: configuration, logger: logger)
    let health = InstanceHealth(
        stalls: metrics.stalls, stallThresholdMilliseconds: configuration.monitoring.stallWarningMilliseconds, connections: connections)
    // One admin API and console, whichever listeners serve them: one sign-in throttle, and one
    // budget for the bodies they hold (their sign-ins read a body before anyone is known).
    let operatorBodies = BodyBudget(configuration: configuration)
    let operatorSurface = AdminMiddleware(
        admin: buildAdminRouter(
            backend: backend, clock: clock, throttle: SignInThrottle(clock: clock), bodies: operatorBodies, fixtures: fixtures,
            fileOrigin: fileOrigin, traffic: metrics.traffic, health: health, routeLog: routeLog
        ).buildResponder(),
        bodies: operatorBodies, routeLog: routeLog)
    let router = buildRouter(
        backend: backend, clock: clock, outbound: outbound, admin: configuration.admin.onAPIPort ? operatorSurface : nil, fileOrigin: fileOrigin,
        metrics: metrics, routeLog: routeLog)
    let api = MethodOverrideResponder(next: router, clock: clock)
    let html5Services = makeHTML5Services(
        backend: backend, api: api, files: fileOrigin, clock: clock, logger: logger, onServerRunning: listening.html5)
    return makeListener(
        responder: api, configuration: configuration, clock: clock, address: .hostname(configuration.host, port: configuration.port),
        connections: connections,
        // Stopped in reverse order: push, the outbound clients, and the databases last.
        services: [BackendService(backend: backend, logger: logger), OutboundService(gateways: outbound)] + pushServices + html5Services
            + makeMonitoringServices(backend: backend, metrics: metrics, clock: clock, logger: logger, onServerRunning: listening.monitoring)
            + makeAdminServices(admin: operatorSurface, configuration: configuration, clock: clock, logger: logger, onServerRunning: listening.admin)
            + engineServices(backend)
            + [RetentionSweepService(backend: backend, clock: clock, interval: .seconds(600), logger: logger)]
            + [
                EventLoopStallDetector(
                    warnAfter: .milliseconds(Int64(configuration.monitoring.stallWarningMilliseconds)), registry: metrics.registry,
                    stalls: metrics.stalls, logger: logger)
            ],
        onServerRunning: { channel in fileOrigin.apiListening(on: channel.localAddress?.port ?? configuration.port) },
        logger: logger)
}

/// The API listener's routes, behind `FrontMiddleware` for all, then `CallerMiddleware` for all
/// but the OpenAPI document (`APIRouter`).
///
/// - Parameter admin: the admin API and console, when the API port serves them.
/// - Parameter routeLog: receives every route registered here and in the push router (the
///   OpenAPI test reads it).
func buildRouter(
    backend: Backend, clock: any ServerClock = SystemClock(), outbound: any OutboundGateways, admin: AdminMiddleware?, fileOrigin: StoredFileOrigin,
    metrics: ServerMetrics = ServerMetrics(), routeLog: RouteLog = RouteLog()
) -> APIRouter {
    let builder = APIRouterBuilder()
    let routes = RecordingRouter(router: builder, log: routeLog, host: .api)
    // One budget for the listener: the push host's requests on this port share it.
    let bodies = BodyBudget(configuration: backend.configuration)
    let push = buildPushRouter(backend: backend, clock: clock, standalone: false, bodies: bodies, routeLog: routeLog)
    let html5 = EnvironmentKind.allCases.compactMap { kind in
        let site = backend.configuration.html5.site(for: kind)
        return site.hosts.isEmpty ? nil : (settings: site, responder: buildHTML5Router(kind: kind, backend: backend, clock: clock, standalone: false).buildResponder())
    }
    let files = backend.files as? LocalFileStore
    routeLog.record(MonitoringMiddleware.routes)
    if files != nil {
        routeLog.record(FilesMiddleware.routes)
    }
    // Needs no credentials.
    OpenAPIController().addRoutes(to: routes)
    builder.requireCaller()
    routeLog.record(UserController.routes)
    routeLog.record(SocialController.routes)

    ServerController().addRoutes(to: routes)
    ListAPIController().addRoutes(to: routes)
    let limits = backend.configuration
    DatastoreController(
        maxBodyBytes: limits.maxBodyBytes, maxExpandedResponseBytes: limits.maxExpandedResponseBytes, fileStore: backend.files,
        files: backend.configuration.files, fileOrigin: fileOrigin
    ).addRoutes(to: routes)
    RelationsController(maxBodyBytes: limits.maxBodyBytes, maxExpandedResponseBytes: limits.maxExpandedResponseBytes).addRoutes(to: routes)
    return builder.build(
        front: FrontMiddleware(
            metrics: RequestMetricsMiddleware(metrics: metrics, clock: clock), headers: ServerHeadersMiddleware(clock: clock),
            monitoring: MonitoringMiddleware(backend: backend, metrics: metrics, standalone: false),
            admin: admin, push: PushHostMiddleware(push: push.buildResponder()),
            html5: HTML5HostMiddleware(sites: html5), cors: CORSPolicyMiddleware(backend: backend),
            files: files.map { FilesMiddleware(store: $0, origin: fileOrigin, sites: html5.map(\.settings)) }),
        caller: CallerMiddleware(
            bodies: bodies,
            authentication: AuthenticationMiddleware(backend: backend, clock: clock),
            users: UserController(
                maxBodyBytes: limits.maxBodyBytes, maxExpandedResponseBytes: limits.maxExpandedResponseBytes,
                attempts: SecretAttempts(backend: backend, clock: clock)),
            social: SocialController(gateway: outbound.social, maxBodyBytes: backend.configuration.maxBodyBytes),
            customCode: CustomCodeMiddleware(
                gateway: outbound.customCode, timeoutSeconds: backend.configuration.customCodeTimeoutSeconds,
                maxBodyBytes: backend.configuration.maxBodyBytes, failures: backend.customCodeFailures)),
        appName: backend.configuration.appName)
}

/// Public keys at every start (developers paste them into the SDKs). A private key passes every
/// ACL and logs outlive it: development's is shown once, by the start that generated it, and
/// production's never; `stackmob-server keys` shows both (docs/operations.md, "Keys").
private func logKeys(of backend: Backend, logger: Logger) {
    for kind in EnvironmentKind.allCases {
        let environment = backend.environment(kind)
        var metadata: Logger.Metadata = ["sm.environment": "\(kind.rawValue)", "sm.public_key": "\(environment.keys.publicKey)"]
        if kind == .development, backend.generatedKeys.contains(kind) {
            metadata["sm.private_key"] = "\(environment.keys.privateKey)"
        } else {
            metadata["sm.keys_command"] = "stackmob-server keys"
        }
        logger.notice("API keys", metadata: metadata)
    }
}


/// What `buildHTTPApplication` calls with the port of each listener of its own once it is bound
/// (tests run them on port 0): the push host's, each environment's HTML5 site's, the monitoring
/// listener's (`monitoring.port`) and the operator listener's (`admin.port`).
public struct ListenersBound: Sendable {
    public var push: @Sendable (Int) async -> Void
    public var html5: @Sendable (EnvironmentKind, Int) async -> Void
    public var monitoring: @Sendable (Int) async -> Void
    public var admin: @Sendable (Int) async -> Void

    public init(
        push: @escaping @Sendable (Int) async -> Void = { _ in }, html5: @escaping @Sendable (EnvironmentKind, Int) async -> Void = { _, _ in },
        monitoring: @escaping @Sendable (Int) async -> Void = { _ in }, admin: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.push = push
        self.html5 = html5
        self.monitoring = monitoring
        self.admin = admin
    }
}
