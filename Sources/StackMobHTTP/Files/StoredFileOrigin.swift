import Hummingbird
import StackMobCore
import Synchronization

/// Where stored files are linked and served: never an HTML5 site's origin, whose pages hold the
/// app's users' tokens, nor the operator listener's. A file written through one of those gets a
/// URL on the API origin (the same host name, the API's port) unless `files_base_url` names
/// another; a stored URL asked for on a site's port is redirected there (docs/security.md,
/// "Uploaded files are inert").
final class StoredFileOrigin: Sendable {
    private let configuration: StackMobConfiguration
    /// The API listener's port as bound (`listen.port` 0 picks one at start).
    private let boundPort: Mutex<Int>

    init(configuration: StackMobConfiguration) {
        self.configuration = configuration
        boundPort = Mutex(configuration.port)
    }

    /// Called once the API listener is bound.
    func apiListening(on port: Int) {
        boundPort.withLock { $0 = port }
    }

    /// The environment's files base URL (D32): URLs are `<base>/<schema>/<id>/<field>/<filename>`.
    /// The configured `environments.<env>.files_base_url` exactly as given; else the object
    /// store's own URL; else this server's `/_files` on the API origin as the client reached it
    /// (so a phone on the LAN, or an emulator's 10.0.2.2, gets URLs it can load). The defaults end
    /// with the environment's segment, because that is where the bytes are kept.
    func base(environment: AppEnvironment, store: any FileStore, request: Request, context: StackMobRequestContext) -> String {
        if let configured = environment.settings.filesBaseURL { return configured.hasSuffix("/") ? String(configured.dropLast()) : configured }
        if let storeURL = store.publicBaseURL { return storeURL + "/" + environment.kind.rawValue }
        return apiOrigin(request, context: context) + FilesMiddleware.pathPrefix + "/" + environment.kind.rawValue
    }

    /// Where a stored file's path (`/_files/<env>/<rest>`), asked for on a site's origin, lives:
    /// under the environment's `files_base_url`, else on the API origin. Nil for a path that is
    /// no stored file's.
    func relocated(_ request: Request, context: StackMobRequestContext) -> String? {
        let path = request.uri.path
        let parts = path.dropFirst(FilesMiddleware.pathPrefix.count + 1).split(separator: "/", maxSplits: 1)
        guard path.isPath(under: FilesMiddleware.pathPrefix), parts.count == 2, let kind = EnvironmentKind(rawValue: String(parts[0])) else {
            return nil
        }
        if let configured = configuration.settings(for: kind).filesBaseURL {
            return (configured.hasSuffix("/") ? String(configured.dropLast()) : configured) + "/" + parts[1]
        }
        return apiOrigin(request, context: context) + path
    }

    /// Whether the environment names a files origin of its own for a site host on the API port
    /// to redirect to.
    func hasBaseURL(forStoredPath path: String) -> Bool {
        let parts = path.dropFirst(FilesMiddleware.pathPrefix.count + 1).split(separator: "/", maxSplits: 1)
        guard let first = parts.first, let kind = EnvironmentKind(rawValue: String(first)) else { return false }
        return configuration.settings(for: kind).filesBaseURL != nil
    }

    /// `scheme://host[:port]` of the API as this request's client reaches the server: its own
    /// `Host` on the API port; the same host name with the API's port from another listener.
    private func apiOrigin(_ request: Request, context: StackMobRequestContext) -> String {
        let scheme = ClientOrigin(request, context: context, proxies: configuration.trustedProxies).isSecure ? "https" : "http"
        let authority = request.head.authority ?? "localhost"
        guard context.listener != .api else { return "\(scheme)://\(authority)" }
        return "\(scheme)://\(HTML5SiteSettings.hostName(of: authority)):\(boundPort.withLock { $0 })"
    }
}
