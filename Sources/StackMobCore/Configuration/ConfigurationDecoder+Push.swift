/// The `push` sections: process-wide (`push`) and per environment (`environments.<env>.push`).
extension ConfigurationDecoder {
    func pushServer() throws -> PushServerSettings {
        try refuseUnknownKeys(["listen", "port", "delivery"])
        var settings = PushServerSettings()
        settings.listen = try bool("listen") ?? settings.listen
        settings.port = try integer("port", in: 0...65535) ?? settings.port
        if let delivery = try section("delivery") {
            try delivery.refuseUnknownKeys([
                "max_attempts", "initial_backoff_seconds", "max_backoff_seconds", "poll_interval_ms", "timeout_seconds",
                "retention_days",
            ])
            var values = settings.delivery
            values.maxAttempts = try delivery.integer("max_attempts", in: 1...1000) ?? values.maxAttempts
            values.initialBackoffSeconds = try delivery.integer("initial_backoff_seconds", in: 1...86_400) ?? values.initialBackoffSeconds
            values.maxBackoffSeconds = try delivery.integer("max_backoff_seconds", in: 1...604_800) ?? values.maxBackoffSeconds
            values.pollIntervalMilliseconds = try delivery.integer("poll_interval_ms", in: 10...3_600_000) ?? values.pollIntervalMilliseconds
            values.timeoutSeconds = try delivery.integer("timeout_seconds", in: 1...600) ?? values.timeoutSeconds
            values.retentionDays = try delivery.integer("retention_days", in: 0...36_500) ?? values.retentionDays
            settings.delivery = values
        }
        return settings
    }

    func push(defaults: PushSettings) throws -> PushSettings {
        try refuseUnknownKeys(["public_registration", "senders", "webhook_url", "apns"])
        var settings = defaults
        settings.publicRegistration = try bool("public_registration") ?? settings.publicRegistration
        if let senders = try section("senders") {
            try senders.refuseUnknownKeys(PushTokenType.allCases.map(\.rawValue))
            for type in PushTokenType.allCases {
                if let kind = try senders.choice(type.rawValue, PushSenderKind.self) { settings.senders[type] = kind }
            }
        }
        settings.webhookURL = try string("webhook_url") ?? settings.webhookURL
        if let apns = try section("apns") {
            try apns.refuseUnknownKeys(["key_file", "key_id", "team_id", "topic", "endpoint", "ca_file"])
            func required(_ key: String) throws -> String {
                guard let value = try apns.string(key), !value.isEmpty else {
                    throw ConfigurationError(key: apns.keyPath(key), "is required when push.apns is given")
                }
                return value
            }
            settings.apns = APNsSettings(
                keyFile: try required("key_file"), keyID: try required("key_id"), teamID: try required("team_id"), topic: try required("topic"),
                endpoint: try apns.string("endpoint").map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }, caFile: try apns.string("ca_file"))
        }
        return settings
    }
}
