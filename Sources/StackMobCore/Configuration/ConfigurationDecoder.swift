import Foundation

/// Reads a configuration tree into `StackMobConfiguration`, checking every value and refusing
/// unknown keys (a misspelt key would otherwise be silently ignored).
struct ConfigurationDecoder {
    private let tree: JSONObject
    private let path: [String]

    static func decode(_ tree: JSONObject) throws -> StackMobConfiguration {
        let root = ConfigurationDecoder(tree: tree, path: [])
        try root.refuseUnknownKeys([
            "app_name", "listen", "data_dir", "log_level", "limits", "storage", "passwords", "environments", "mail", "files",
            "custom_code", "push", "html5", "fixtures", "backups", "monitoring", "logging", "admin",
        ])
        var configuration = StackMobConfiguration()
        configuration.appName = try root.string("app_name") ?? configuration.appName
        if let listen = try root.section("listen") {
            try listen.refuseUnknownKeys(["host", "port", "trusted_proxies", "http1_channel"])
            configuration.host = try listen.string("host") ?? configuration.host
            configuration.port = try listen.integer("port", in: 0...65535) ?? configuration.port
            configuration.trustedProxies = try listen.trustedProxies() ?? configuration.trustedProxies
            configuration.http1Channel = try listen.choice("http1_channel", StackMobConfiguration.HTTP1ChannelKind.self) ?? configuration.http1Channel
        }
        configuration.dataDirectory = try root.string("data_dir") ?? configuration.dataDirectory
        configuration.logLevel = try root.choice("log_level", StackMobConfiguration.LogLevel.self) ?? configuration.logLevel
        if let limits = try root.section("limits") {
            try limits.refuseUnknownKeys([
                "max_body_bytes", "max_body_bytes_per_client", "max_body_bytes_in_flight", "max_expanded_response_bytes", "idle_timeout_seconds", "header_timeout_seconds", "body_timeout_seconds", "request_timeout_seconds",
                "max_connections", "max_connections_per_client", "new_connection_timeout_seconds",
                "auth_failures_per_address", "auth_failures_per_account", "auth_failure_window_seconds",
            ])
            configuration.maxBodyBytes = try limits.integer("max_body_bytes", in: 1...Int(Int32.max)) ?? configuration.maxBodyBytes
            if let bytes = try limits.integer("max_body_bytes_per_client", in: 1...Int(Int32.max)) { configuration.maxBodyBytesPerClient = bytes }
            if let bytes = try limits.integer("max_body_bytes_in_flight", in: 1...Int(Int32.max)) { configuration.maxBodyBytesInFlight = bytes }
            configuration.maxExpandedResponseBytes =
                try limits.integer("max_expanded_response_bytes", in: 1024...Int(Int32.max)) ?? configuration.maxExpandedResponseBytes
            configuration.idleTimeoutSeconds = try limits.integer("idle_timeout_seconds", in: 1...86_400) ?? configuration.idleTimeoutSeconds
            configuration.headerTimeoutSeconds = try limits.integer("header_timeout_seconds", in: 1...86_400) ?? configuration.headerTimeoutSeconds
            configuration.bodyTimeoutSeconds = try limits.integer("body_timeout_seconds", in: 1...86_400) ?? configuration.bodyTimeoutSeconds
            configuration.requestTimeoutSeconds =
                try limits.integer("request_timeout_seconds", in: 1...86_400) ?? configuration.requestTimeoutSeconds
            configuration.maxConnections = try limits.integer("max_connections", in: 1...1_000_000) ?? configuration.maxConnections
            configuration.maxConnectionsPerClient =
                try limits.integer("max_connections_per_client", in: 1...1_000_000) ?? configuration.maxConnectionsPerClient
            configuration.newConnectionTimeoutSeconds =
                try limits.integer("new_connection_timeout_seconds", in: 1...86_400) ?? configuration.newConnectionTimeoutSeconds
            var failures = configuration.failureLimits
            failures.failuresPerAddress = try limits.integer("auth_failures_per_address", in: 0...1_000_000) ?? failures.failuresPerAddress
            failures.failuresPerAccount = try limits.integer("auth_failures_per_account", in: 0...1_000_000) ?? failures.failuresPerAccount
            failures.windowSeconds = try limits.integer("auth_failure_window_seconds", in: 1...86_400) ?? failures.windowSeconds
            configuration.failureLimits = failures
        }
        if let storage = try root.section("storage") {
            try storage.refuseUnknownKeys(["engine", "synchronous", "postgresql"])
            configuration.storage.engine = try storage.choice("engine", StorageSettings.Engine.self) ?? configuration.storage.engine
            configuration.durability = try storage.choice("synchronous", StorageSettings.Durability.self) ?? configuration.durability
            if let postgresql = try storage.section("postgresql") {
                try postgresql.refuseUnknownKeys(
                    ["url", "pool_size", "tls", "statement_timeout_seconds", "connect_timeout_seconds", "schema_prefix"])
                var settings = configuration.storage.postgresql
                settings.url = try postgresql.string("url") ?? settings.url
                settings.poolSize = try postgresql.integer("pool_size", in: 1...1_000) ?? settings.poolSize
                settings.tls = try postgresql.choice("tls", PostgreSQLSettings.TLSMode.self) ?? settings.tls
                settings.statementTimeoutSeconds =
                    try postgresql.integer("statement_timeout_seconds", in: 1...86_400) ?? settings.statementTimeoutSeconds
                settings.connectTimeoutSeconds = try postgresql.integer("connect_timeout_seconds", in: 1...600) ?? settings.connectTimeoutSeconds
                settings.schemaPrefix = try postgresql.string("schema_prefix") ?? settings.schemaPrefix
                configuration.storage.postgresql = settings
            }
        }
        if let passwords = try root.section("passwords") {
            try passwords.refuseUnknownKeys(["pbkdf2_rounds"])
            configuration.passwordRounds = try passwords.integer("pbkdf2_rounds", in: 1...10_000_000) ?? configuration.passwordRounds
        }
        if let mail = try root.section("mail") {
            try mail.refuseUnknownKeys(["from", "smtp"])
            configuration.mail.from = try mail.string("from") ?? configuration.mail.from
            if let smtp = try mail.section("smtp") {
                try smtp.refuseUnknownKeys(["host", "port", "starttls", "username", "password", "ca_file", "timeout_seconds"])
                configuration.mail.smtp.host = try smtp.string("host")
                configuration.mail.smtp.port = try smtp.integer("port", in: 1...65535) ?? configuration.mail.smtp.port
                configuration.mail.smtp.startTLS = try smtp.bool("starttls") ?? configuration.mail.smtp.startTLS
                configuration.mail.smtp.username = try smtp.string("username")
                configuration.mail.smtp.password = try smtp.string("password")
                configuration.mail.smtp.caFile = try smtp.string("ca_file")
                configuration.mail.smtp.timeoutSeconds = try smtp.integer("timeout_seconds", in: 1...600) ?? configuration.mail.smtp.timeoutSeconds
            }
        }
        if let files = try root.section("files") {
            configuration.files = try files.files()
        }
        if let customCode = try root.section("custom_code") {
            try customCode.refuseUnknownKeys(["timeout_seconds"])
            configuration.customCodeTimeoutSeconds = try customCode.integer("timeout_seconds", in: 1...3600) ?? configuration.customCodeTimeoutSeconds
        }
        if let push = try root.section("push") {
            configuration.push = try push.pushServer()
        }
        if let html5 = try root.section("html5") {
            configuration.html5 = try html5.html5()
        }
        try root.operations(into: &configuration)
        if let environments = try root.section("environments") {
            try environments.refuseUnknownKeys(EnvironmentKind.allCases.map(\.rawValue))
            if let development = try environments.section("development") {
                configuration.development = try development.environment(defaults: configuration.development)
            }
            if let production = try environments.section("production") {
                configuration.production = try production.environment(defaults: configuration.production)
            }
        }
        try ConfigurationValidator.validate(configuration)
        return configuration
    }

    private func environment(defaults: EnvironmentSettings) throws -> EnvironmentSettings {
        try refuseUnknownKeys([
            "public_key", "private_key", "schema_inference", "user_schemas", "indexes", "relationships",
            "access_token_lifetime_seconds", "refresh_token_lifetime_days", "mac_timestamp_window_seconds", "expired_token_as_anonymous", "single_session",
            "oauth1_timestamp_window_seconds", "cors_allowed_origins", "cors_max_age_seconds", "custom_code", "push",
            "permissions", "roles", "schemas", "schemas_file", "files_base_url", "social",
        ])
        var settings = defaults
        settings.publicKey = try string("public_key") ?? settings.publicKey
        settings.privateKey = try string("private_key") ?? settings.privateKey
        settings.schemaInference = try bool("schema_inference") ?? settings.schemaInference
        settings.accessTokenLifetimeSeconds =
            try integer("access_token_lifetime_seconds", in: 1...31_536_000) ?? settings.accessTokenLifetimeSeconds
        settings.refreshTokenLifetimeDays = try integer("refresh_token_lifetime_days", in: 1...3650) ?? settings.refreshTokenLifetimeDays
        settings.macTimestampWindowSeconds = try integer("mac_timestamp_window_seconds", in: 0...86_400) ?? settings.macTimestampWindowSeconds
        settings.oauth1TimestampWindowSeconds =
            try integer("oauth1_timestamp_window_seconds", in: 0...86_400) ?? settings.oauth1TimestampWindowSeconds
        settings.expiredTokenAsAnonymous = try bool("expired_token_as_anonymous") ?? settings.expiredTokenAsAnonymous
        settings.singleSession = try bool("single_session") ?? settings.singleSession
        settings.filesBaseURL = try string("files_base_url").map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        if let origins = try array("cors_allowed_origins") {
            settings.corsAllowedOrigins = try origins.enumerated().map { index, element in
                guard let origin = element.stringValue, !origin.isEmpty else {
                    throw ConfigurationError(key: keyPath("cors_allowed_origins[\(index)]"), "must be a non-empty string")
                }
                return origin
            }
        }
        settings.corsMaxAgeSeconds = try integer("cors_max_age_seconds", in: 0...86_400) ?? settings.corsMaxAgeSeconds
        if let methods = try object("custom_code") {
            settings.customCode = try methods.keys.sorted().map { name in
                guard let url = methods[name]?.stringValue else {
                    throw ConfigurationError(key: keyPath("custom_code.\(name)"), "must be the webhook URL as a string")
                }
                return CustomCodeMethod(name: name, url: url)
            }
        }
        if let push = try section("push") {
            settings.push = try push.push(defaults: settings.push)
        }
        if let social = try section("social") {
            settings.social = try social.social()
        }
        if let list = try array("user_schemas") {
            settings.userSchemas = try list.enumerated().map { index, element in
                guard let object = element.objectValue else {
                    throw ConfigurationError(key: keyPath("user_schemas[\(index)]"), "must be an object")
                }
                let schema = ConfigurationDecoder(tree: object, path: path + ["user_schemas[\(index)]"])
                try schema.refuseUnknownKeys(["name", "login_field", "password_field", "email_field"])
                return UserSchema(
                    name: try schema.string("name") ?? "user",
                    loginField: try schema.string("login_field") ?? "username",
                    passwordField: try schema.string("password_field") ?? "password",
                    emailField: try schema.string("email_field"))
            }
        }
        if let indexes = try object("indexes") {
            var parsed: [String: [[String]]] = [:]
            for (schema, entries) in indexes {
                // Each entry is a field name, or a list of field names for a composite index.
                let list = entries.arrayValue ?? []
                let indexFields: [[String]] = list.compactMap { entry in
                    if let field = entry.stringValue { return [field] }
                    let fields = entry.arrayValue?.compactMap(\.stringValue) ?? []
                    return fields.isEmpty || fields.count != entry.arrayValue?.count ? nil : fields
                }
                guard entries.arrayValue != nil, indexFields.count == list.count else {
                    throw ConfigurationError(
                        key: keyPath("indexes.\(schema)"), "must be an array of field names, or of lists of field names for composite indexes")
                }
                parsed[schema] = indexFields
            }
            settings.indexes = parsed
        }
        if let relationships = try object("relationships") {
            settings.relationships = try RelationshipDeclarations.parse(relationships, key: keyPath("relationships"))
        }
        if let permissions = try object("permissions") {
            settings.access.schemas = try AccessPolicyDeclarations.permissions(permissions, key: keyPath("permissions"))
        }
        if let roles = try object("roles") {
            settings.access.roles = try AccessPolicyDeclarations.roles(roles, key: keyPath("roles"))
        }
        try schemaDeclarations(into: &settings, inline: try object("schemas"))
        return settings
    }

    // MARK: - Typed access

    func keyPath(_ key: String) -> String {
        (path + [key]).joined(separator: ".")
    }

    func refuseUnknownKeys(_ known: [String]) throws {
        for key in tree.keys.sorted() where !known.contains(key) {
            throw ConfigurationError(unknownKey: path + [key], "unknown key (known here: \(known.joined(separator: ", ")))")
        }
    }

    func section(_ key: String) throws -> ConfigurationDecoder? {
        switch tree[key] {
        case nil, .null?: return nil
        case .object(let object)?: return ConfigurationDecoder(tree: object, path: path + [key])
        default: throw ConfigurationError(key: keyPath(key), "must be an object")
        }
    }

    func string(_ key: String) throws -> String? {
        switch tree[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw ConfigurationError(key: keyPath(key), "must be a string")
        }
    }

    func integer(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
        let number: Int?
        switch tree[key] {
        case nil, .null?: return nil
        case .integer(let value)?: number = Int(exactly: value)
        // Environment variables arrive as text.
        case .string(let text)?: number = Int(text.trimmingSpaces())
        default: number = nil
        }
        guard let number, range.contains(number) else {
            throw ConfigurationError(key: keyPath(key), "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    func bool(_ key: String) throws -> Bool? {
        switch tree[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case .string("true")?, .string("1")?: return true
        case .string("false")?, .string("0")?: return false
        default: throw ConfigurationError(key: keyPath(key), "must be true or false")
        }
    }

    func choice<Choice: RawRepresentable & CaseIterable>(_ key: String, _ type: Choice.Type) throws -> Choice?
    where Choice.RawValue == String {
        guard let text = try string(key) else { return nil }
        guard let value = Choice(rawValue: text.lowercased()) else {
            throw ConfigurationError(key: keyPath(key), "must be one of \(Choice.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    private func object(_ key: String) throws -> JSONObject? {
        switch tree[key] {
        case nil, .null?: return nil
        case .object(let object)?: return object
        case .string(let text)?:
            // An environment variable holds the object as JSON text.
            guard let object = (try? JSONParser.parse(text))?.objectValue else {
                throw ConfigurationError(key: keyPath(key), "must be a JSON object")
            }
            return object
        default: throw ConfigurationError(key: keyPath(key), "must be an object")
        }
    }

    func array(_ key: String) throws -> [JSONValue]? {
        switch tree[key] {
        case nil, .null?: return nil
        case .array(let elements)?: return elements
        case .string(let text)?:
            // An environment variable holds the list as JSON text.
            guard let elements = (try? JSONParser.parse(text))?.arrayValue else {
                throw ConfigurationError(key: keyPath(key), "must be a JSON array")
            }
            return elements
        default: throw ConfigurationError(key: keyPath(key), "must be an array")
        }
    }
}
