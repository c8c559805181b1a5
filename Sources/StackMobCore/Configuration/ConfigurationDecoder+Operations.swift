/// The operator's keys of issue 17: `fixtures`, `backups.*`, `monitoring.*`, `logging.format`.
extension ConfigurationDecoder {
    func operations(into configuration: inout ServerConfiguration) throws {
        configuration.fixturesFile = try string("fixtures") ?? configuration.fixturesFile
        if let backups = try section("backups") {
            try backups.refuseUnknownKeys(["interval_seconds", "keep", "directory"])
            configuration.backups.intervalSeconds =
                try backups.integer("interval_seconds", in: 0...31_536_000) ?? configuration.backups.intervalSeconds
            configuration.backups.keep = try backups.integer("keep", in: 1...10_000) ?? configuration.backups.keep
            configuration.backups.directory = try backups.string("directory") ?? configuration.backups.directory
        }
        if let monitoring = try section("monitoring") {
            try monitoring.refuseUnknownKeys(["enabled", "host", "port", "key"])
            configuration.monitoring.enabled = try monitoring.bool("enabled") ?? configuration.monitoring.enabled
            configuration.monitoring.host = try monitoring.string("host") ?? configuration.monitoring.host
            configuration.monitoring.port = try monitoring.integer("port", in: 0...65535) ?? configuration.monitoring.port
            if let key = try monitoring.string("key") {
                guard key.count >= 16 else { throw ConfigurationError(key: monitoring.keyPath("key"), "must be at least 16 characters long") }
                configuration.monitoring.key = key
            }
        }
        if let logging = try section("logging") {
            try logging.refuseUnknownKeys(["format"])
            configuration.logFormat = try logging.choice("format", ServerConfiguration.LogFormat.self) ?? configuration.logFormat
        }
    }
}
