/// The `html5` section: where each environment's HTML5 app is served (docs/operations.md,
/// "Hosting your HTML5 app"). Process-wide, like `push`, because each site is a listener of its own.
public struct HTML5Settings: Sendable, Equatable {
    /// Deployed versions kept per environment (the current one included), for `html5 rollback`.
    public var keepVersions = 5
    public var development = HTML5SiteSettings(port: 8082)
    public var production = HTML5SiteSettings(port: 8083)
    /// The only directory under which the admin API deploys a server-side directory; nil = the
    /// admin API deploys uploaded archives only. The command line (`stackmob-server html5
    /// deploy`) runs as the server's own user and is not bound by it.
    public var deployRoot: String?
    /// The largest archive the admin API accepts for a deploy.
    public var maxArchiveBytes = 64 * 1024 * 1024

    public init() {}

    public func site(for kind: EnvironmentKind) -> HTML5SiteSettings {
        switch kind {
        case .development: development
        case .production: production
        }
    }
}

/// `html5.<env>`: one environment's site.
public struct HTML5SiteSettings: Sendable, Equatable {
    /// Whether the site has a listener of its own on `port`. Off by default: a server that hosts
    /// no HTML5 app opens no extra port.
    public var listen = false
    /// The site's own port; 0 = any free port (tests).
    public var port: Int
    /// Host names served as this site on the API port, each exact (`www.example.com`) or a
    /// wildcard of one or more leading labels (`*.example.com`).
    public var hosts: [String] = []
    /// Whether a missing page (a path whose last segment has no `.`) is answered with the root
    /// `index.html`, for single-page apps that route in the browser.
    public var spaFallback = false

    public init(port: Int) {
        self.port = port
    }

    /// Whether the `Host` header (a name, maybe with `:port`) names this site.
    public func matches(host authority: String?) -> Bool {
        guard let authority, !hosts.isEmpty else { return false }
        let name = Self.hostName(of: authority)
        return hosts.contains { pattern in
            let pattern = pattern.lowercased()
            if pattern.hasPrefix("*.") { return name.hasSuffix(pattern.dropFirst()) && name.count > pattern.count - 1 }
            return name == pattern
        }
    }

    /// The host of a `Host` header, lower-cased, without its port (IPv6 literals keep their brackets).
    public static func hostName(of authority: String) -> String {
        let lowered = authority.lowercased()
        if lowered.hasPrefix("["), let close = lowered.firstIndex(of: "]") { return String(lowered[...close]) }
        return String(lowered.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }
}
