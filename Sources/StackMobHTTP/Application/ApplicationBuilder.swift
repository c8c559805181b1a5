import Hummingbird
import Logging
import StackMobCore
import StackMobMail

/// Builds the application from a configuration: opens the backend (databases, keys), builds the
/// router and wraps it for the HTTP server.
public func buildApplication(
    configuration: ServerConfiguration, clock: any ServerClock = SystemClock(), logger: Logger
) async throws -> some ApplicationProtocol {
    // SMTP when `mail.smtp.host` is set; nil = each environment's outbox.
    let mailer = SMTPMailer(mail: configuration.mail, logger: logger)
    if let smtp = configuration.mail.smtp.host {
        logger.info("Mail goes over SMTP", metadata: ["sm.smtp.host": "\(smtp)", "sm.smtp.port": "\(configuration.mail.smtp.port)"])
    }
    let backend = try await Backend.open(configuration, clock: clock, mailer: mailer, logger: logger)
    logKeys(of: backend, logger: logger)
    let router = buildRouter(backend: backend, clock: clock)
    return Application(
        responder: MethodOverrideResponder(next: router.buildResponder(), clock: clock),
        server: .http1(configuration: .init(idleTimeout: .seconds(Int64(configuration.idleTimeoutSeconds)))),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "StackMob Server"),
        logger: logger)
}

/// The routes, behind the middleware listed in the order a request passes through it.
public func buildRouter(backend: Backend, clock: any ServerClock = SystemClock()) -> Router<StackMobRequestContext> {
    let router = Router(context: StackMobRequestContext.self)
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: ServerHeadersMiddleware(clock: clock))
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: NotFoundMiddleware())
    router.add(middleware: AuthenticationMiddleware(backend: backend))
    router.add(middleware: UserController(maxBodyBytes: backend.configuration.maxBodyBytes))

    ServerController().addRoutes(to: router)
    DatastoreController(maxBodyBytes: backend.configuration.maxBodyBytes).addRoutes(to: router)
    RelationsController(maxBodyBytes: backend.configuration.maxBodyBytes).addRoutes(to: router)
    return router
}

/// The public keys, and the development private key, are printed so a developer can paste them
/// into an SDK. The production private key is not: it stays in the configuration or keys file.
private func logKeys(of backend: Backend, logger: Logger) {
    for kind in EnvironmentKind.allCases {
        let environment = backend.environment(kind)
        var metadata: Logger.Metadata = ["sm.environment": "\(kind.rawValue)", "sm.public_key": "\(environment.keys.publicKey)"]
        if kind == .development {
            metadata["sm.private_key"] = "\(environment.keys.privateKey)"
        }
        logger.notice("API keys", metadata: metadata)
    }
}
