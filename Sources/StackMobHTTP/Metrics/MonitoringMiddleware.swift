import Hummingbird
import NIOCore
import StackMobCore

/// `GET /metrics` (Prometheus text), `/health` (the process answers) and `/ready` (every
/// environment's database answers a read).
///
/// On the API listener they are answered only to a loopback client that came through no proxy
/// (its request carries no forwarding header), or to one presenting
/// `Authorization: Bearer <monitoring.key>`, and only to requests that carry no StackMob API key
/// (an app may have schemas named `health` or `metrics`); anything else passes on to the API
/// as if these routes did not exist. On the monitoring listener of its own (`standalone`), they
/// are answered to whoever reaches it, or only with the key when one is set.
struct MonitoringMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    /// An array: every request of the API port asks whether its path is one of these, and three
    /// comparisons of short strings cost less than hashing the path.
    static let paths = ["/health", "/metrics", "/ready"]
    /// The endpoints this middleware answers, for the route log.
    static var routes: [RegisteredRoute] {
        paths.sorted().flatMap { path in ["GET", "HEAD"].map { RegisteredRoute(host: .api, method: $0, path: path) } }
    }
    let backend: Backend
    let metrics: ServerMetrics
    let standalone: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard claims(request, context: context) else { return try await next(request, context) }
        return try await respond(to: request, context: context)
    }

    /// Whether the request is one of the monitoring routes, from a client allowed to read them.
    func claims(_ request: Request, context: Context) -> Bool {
        (request.method == .get || request.method == .head) && Self.paths.contains(request.uri.path) && isAllowed(request, context: context)
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        switch request.uri.path {
        case "/health":
            return JSONResponse.make(["status": "alive"], headers: [.cacheControl: "no-store"])
        case "/ready":
            for kind in EnvironmentKind.allCases {
                do {
                    try await backend.environment(kind).ping()
                } catch {
                    context.logger.error("Database does not answer", metadata: ["sm.environment": "\(kind.rawValue)"])
                    return JSONResponse.make(
                        ["status": "unavailable", "environment": .string(kind.rawValue)], status: .serviceUnavailable,
                        headers: [.cacheControl: "no-store"])
                }
            }
            return JSONResponse.make(["status": "ready"], headers: [.cacheControl: "no-store"])
        default:
            await metrics.recordOutboxes(of: backend)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.render())))
        }
    }

    private func isAllowed(_ request: Request, context: Context) -> Bool {
        Self.allows(
            backend.configuration.monitoring, standalone: standalone, remoteAddress: context.remoteAddress,
            forwarded: ClientOrigin(request, context: context, proxies: backend.configuration.trustedProxies).carriesForwardingHeaders,
            authorization: request.headers[.authorization], carriesAPIKey: request.headers[.stackMobAPIKey] != nil)
    }

    /// Who may read the monitoring routes (see the type's comment). A loopback peer counts as
    /// this machine only when it forwarded nothing: a TLS proxy on the same machine is a
    /// loopback peer for every remote client.
    static func allows(
        _ settings: MonitoringSettings, standalone: Bool, remoteAddress: String?, forwarded: Bool, authorization: String?, carriesAPIKey: Bool
    ) -> Bool {
        guard settings.enabled else { return false }
        // Compared as hashes, as the admin API compares its CSRF token.
        let presentsKey = settings.key.map { SessionSecrets.hash("Bearer \($0)") == SessionSecrets.hash(authorization ?? "") } ?? false
        if standalone { return settings.key == nil || presentsKey }
        guard !carriesAPIKey else { return false }
        return presentsKey || (isLoopback(remoteAddress) && !forwarded)
    }

    static func isLoopback(_ address: String?) -> Bool {
        guard let address else { return false }
        return address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }
}
