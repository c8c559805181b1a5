import Hummingbird
import StackMobCore

/// One environment's static site (`HTML5SiteMiddleware`), on its own port or, for the `Host`
/// names it lists, on the API port (`HTML5HostMiddleware`).
///
/// - Parameter standalone: true for the site's own listener, which needs the request log and the
///   server headers; on the API port the API router has already applied them.
func buildHTML5Router(kind: EnvironmentKind, backend: Backend, clock: any ServerClock, standalone: Bool) -> Router<StackMobRequestContext> {
    let router = Router(context: StackMobRequestContext.self)
    let site = HTML5SiteMiddleware(
        kind: kind, deployments: HTML5Deployments(configuration: backend.configuration),
        spaFallback: backend.configuration.html5.site(for: kind).spaFallback)
    router.add(
        layers: (standalone ? [(.requestLog, RequestLogMiddleware()), (.serverHeaders, ServerHeadersMiddleware(clock: clock))] : [])
            + [(.errors, ErrorMiddleware()), (.surface, site)])
    return router
}
