/// The `html5` section (docs/operations.md, "Hosting your HTML5 app").
extension ConfigurationDecoder {
    func html5() throws -> HTML5Settings {
        try refuseUnknownKeys(["keep_versions", "deploy_root", "max_archive_bytes"] + EnvironmentKind.allCases.map(\.rawValue))
        var settings = HTML5Settings()
        settings.keepVersions = try integer("keep_versions", in: 1...1000) ?? settings.keepVersions
        settings.deployRoot = try string("deploy_root") ?? settings.deployRoot
        settings.maxArchiveBytes = try integer("max_archive_bytes", in: 1...Int(Int32.max)) ?? settings.maxArchiveBytes
        if let development = try section("development") {
            settings.development = try development.html5Site(defaults: settings.development)
        }
        if let production = try section("production") {
            settings.production = try production.html5Site(defaults: settings.production)
        }
        return settings
    }

    private func html5Site(defaults: HTML5SiteSettings) throws -> HTML5SiteSettings {
        try refuseUnknownKeys(["listen", "port", "hosts", "spa_fallback"])
        var site = defaults
        site.listen = try bool("listen") ?? site.listen
        site.port = try integer("port", in: 0...65535) ?? site.port
        site.spaFallback = try bool("spa_fallback") ?? site.spaFallback
        if let hosts = try array("hosts") {
            site.hosts = try hosts.enumerated().map { index, element in
                guard let host = element.stringValue else { throw ConfigurationError(key: keyPath("hosts[\(index)]"), "must be a string") }
                return host
            }
        }
        return site
    }
}
