/// The operator's keys: `fixtures`, `backups.*`, `monitoring.*`, `logging.format`, `admin.*`.
extension ConfigurationDecoder {
    func operations(into configuration: inout StackMobConfiguration) throws {
        if let admin = try section("admin") {
            configuration.admin = try admin.admin()
        }
        configuration.fixturesFile = try string("fixtures") ?? configuration.fixturesFile
        if let backups = try section("backups") {
            try backups.refuseUnknownKeys(["interval_seconds", "keep", "directory"])
            configuration.backups.intervalSeconds =
                try backups.integer("interval_seconds", in: 0...31_536_000) ?? configuration.backups.intervalSeconds
            configuration.backups.keep = try backups.integer("keep", in: 1...10_000) ?? configuration.backups.keep
            configuration.backups.directory = try backups.string("directory") ?? configuration.backups.directory
        }
        if let monitoring = try section("monitoring") {
            try monitoring.refuseUnknownKeys(["enabled", "host", "port", "key", "stall_warning_ms"])
            configuration.monitoring.enabled = try monitoring.bool("enabled") ?? configuration.monitoring.enabled
            configuration.monitoring.host = try monitoring.string("host") ?? configuration.monitoring.host
            configuration.monitoring.port = try monitoring.integer("port", in: 0...65535) ?? configuration.monitoring.port
            configuration.monitoring.stallWarningMilliseconds =
                try monitoring.integer("stall_warning_ms", in: 10...60_000) ?? configuration.monitoring.stallWarningMilliseconds
            if let key = try monitoring.string("key") {
                guard key.count >= 16 else { throw ConfigurationError(key: monitoring.keyPath("key"), "must be at least 16 characters long") }
                configuration.monitoring.key = key
            }
        }
        if let logging = try section("logging") {
            try logging.refuseUnknownKeys(["format"])
            configuration.logFormat = try logging.choice("format", StackMobConfiguration.LogFormat.self) ?? configuration.logFormat
        }
    }

    private func admin() throws -> AdminSettings {
        try refuseUnknownKeys(["on_api_port", "host", "port", "reset_environments"])
        var settings = AdminSettings()
        settings.onAPIPort = try bool("on_api_port") ?? settings.onAPIPort
        settings.host = try string("host") ?? settings.host
        settings.port = try integer("port", in: 0...65535) ?? settings.port
        if let environments = try array("reset_environments") {
            settings.resetEnvironments = try environments.enumerated().map { index, element in
                guard let name = element.stringValue, let kind = EnvironmentKind(rawValue: name) else {
                    throw ConfigurationError(key: keyPath("reset_environments[\(index)]"), "must be development or production")
                }
                return kind
            }
        }
        return settings
    }

    /// `listen.trusted_proxies`: addresses and `address/prefix` networks.
    func trustedProxies() throws -> TrustedProxies? {
        guard let entries = try array("trusted_proxies") else { return nil }
        let texts = try entries.enumerated().map { index, element in
            guard let text = element.stringValue else { throw ConfigurationError(key: keyPath("trusted_proxies[\(index)]"), "must be a string") }
            return text
        }
        do {
            return try TrustedProxies(texts)
        } catch {
            throw ConfigurationError(key: keyPath("trusted_proxies"), "'\(error.entry)' must be an IP address or a network (10.0.0.0/8, fd00::/8)")
        }
    }
}
