import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import StackMobCore

/// The HTML5 listeners: one Application per environment with `html5.<env>.listen`, serving that
/// environment's site and handing API calls to `api`, the API port's own responder.
func makeHTML5Services<API: HTTPResponder>(
    backend: Backend, api: API, files: StoredFileOrigin, clock: any ServerClock, logger: Logger,
    onServerRunning: @escaping @Sendable (EnvironmentKind, Int) async -> Void
) -> [any Service] where API.Context == StackMobRequestContext {
    let configuration = backend.configuration
    return EnvironmentKind.allCases.compactMap { kind -> (any Service)? in
        let site = configuration.html5.site(for: kind)
        guard site.listen else { return nil }
        var siteLogger = logger
        // Tells each site's lines (Hummingbird's "listening on" among them) from the API's.
        siteLogger[metadataKey: "sm.listener"] = "html5.\(kind.rawValue)"
        let router = buildHTML5Router(kind: kind, backend: backend, clock: clock, standalone: true)
        return makeListener(
            responder: HTML5Responder(api: api, site: router.buildResponder(), files: files), configuration: configuration, clock: clock,
            address: .hostname(configuration.host, port: site.port),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? site.port
                logger.notice("HTML5 site listening", metadata: ["sm.environment": "\(kind.rawValue)", "sm.html5.port": "\(port)"])
                await onServerRunning(kind, port)
            },
            logger: siteLogger)
    }
}
