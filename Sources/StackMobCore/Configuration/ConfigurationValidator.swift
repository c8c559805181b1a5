/// Checks that hold across keys, after every value was read.
extension StackMobConfiguration {
    /// Checks the whole configuration; the loader calls it, and so must anyone who changes a
    /// loaded configuration (command-line flags).
    public func validate() throws {
        try ConfigurationValidator.validate(self)
    }
}

enum ConfigurationValidator {
    static func validate(_ configuration: StackMobConfiguration) throws {
        if configuration.appName.isEmpty {
            throw ConfigurationError(key: "app_name", "must not be empty")
        }
        if configuration.host.isEmpty {
            throw ConfigurationError(key: "listen.host", "must not be empty")
        }
        if configuration.dataDirectory.isEmpty {
            throw ConfigurationError(key: "data_dir", "must not be empty")
        }
        for kind in EnvironmentKind.allCases {
            try validate(configuration.settings(for: kind), prefix: "environments.\(kind.rawValue)")
        }
        if configuration.requestTimeoutSeconds <= configuration.customCodeTimeoutSeconds {
            // Otherwise a slow webhook is cut by the request limit, without the custom-code 504.
            throw ConfigurationError(
                key: "limits.request_timeout_seconds", "must be more than custom_code.timeout_seconds (\(configuration.customCodeTimeoutSeconds))")
        }
        // Otherwise a body the size of the limit could never be taken.
        if configuration.maxBodyBytesPerClient < configuration.maxBodyBytes {
            throw ConfigurationError(key: "limits.max_body_bytes_per_client", "must be at least limits.max_body_bytes (\(configuration.maxBodyBytes))")
        }
        if configuration.maxBodyBytesInFlight < configuration.maxBodyBytesPerClient {
            throw ConfigurationError(
                key: "limits.max_body_bytes_in_flight", "must be at least limits.max_body_bytes_per_client (\(configuration.maxBodyBytesPerClient))")
        }
        try validateStorage(configuration.storage)
        try MailSettingsValidator.validate(configuration.mail)
        try validateFiles(configuration.files)
        try validatePush(configuration)
        try validateSocial(configuration)
        try validateHTML5(configuration)
        try validateOperations(configuration)
        if let development = configuration.development.publicKey, development == configuration.production.publicKey {
            throw ConfigurationError(key: "environments.production.public_key", "must differ from the development public key")
        }
    }

    private static func validate(_ settings: EnvironmentSettings, prefix: String) throws {
        // The iOS SDK refuses public keys of any other length than a UUID's.
        if let key = settings.publicKey, key.count != 36 {
            throw ConfigurationError(key: "\(prefix).public_key", "must be 36 characters long (a UUID), as the iOS SDK requires")
        }
        if let key = settings.privateKey, key.count < 16 {
            throw ConfigurationError(key: "\(prefix).private_key", "must be at least 16 characters long")
        }
        try validateCustomCode(settings.customCode, prefix: prefix)
        try validateFilesBaseURL(settings.filesBaseURL, prefix: prefix)
        for (schema, fields) in settings.indexes {
            guard Identifier.isValidSchemaName(schema) else {
                throw ConfigurationError(key: "\(prefix).indexes.\(schema)", "'\(schema)' is not a valid schema name")
            }
            for field in fields.joined() where !Identifier.isValidFieldName(field) {
                throw ConfigurationError(key: "\(prefix).indexes.\(schema)", "'\(field)' is not a valid field name")
            }
        }
        var names: Set<String> = []
        for (index, schema) in settings.userSchemas.enumerated() {
            let key = "\(prefix).user_schemas[\(index)]"
            guard Identifier.isValidSchemaName(schema.name) else {
                throw ConfigurationError(key: "\(key).name", "'\(schema.name)' is not a valid schema name (lower-case letters, digits, underscores, starting with a letter)")
            }
            guard !Identifier.isReservedSchemaName(schema.name) else {
                throw ConfigurationError(key: "\(key).name", "'\(schema.name)' is reserved (listapi, or a name starting with sqlite_)")
            }
            guard names.insert(schema.name).inserted else {
                throw ConfigurationError(key: "\(key).name", "'\(schema.name)' is listed twice")
            }
            let fields = [("login_field", schema.loginField), ("password_field", schema.passwordField)] + (schema.emailField.map { [("email_field", $0)] } ?? [])
            for (field, value) in fields {
                guard Identifier.isValidFieldName(value), !["createddate", "lastmoddate", "sm_owner"].contains(value) else {
                    throw ConfigurationError(key: "\(key).\(field)", "'\(value)' is not a valid field name")
                }
            }
            if schema.loginField == schema.passwordField {
                throw ConfigurationError(key: "\(key).password_field", "must differ from login_field")
            }
            if let email = schema.emailField, email == schema.passwordField {
                throw ConfigurationError(key: "\(key).email_field", "must differ from password_field")
            }
        }
    }
}
