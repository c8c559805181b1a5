extension ConfigurationValidator {
    static func validateStorage(_ storage: StorageSettings) throws {
        guard storage.engine == .postgresql else { return }
        guard let url = storage.postgresql.url, !url.isEmpty else {
            throw ConfigurationError(key: "storage.postgresql.url", "is required with storage.engine \"postgresql\"")
        }
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
            // The URL holds a password: never repeat it in the message.
            throw ConfigurationError(key: "storage.postgresql.url", "must be a postgres:// URL (postgres://user:password@host:port/database)")
        }
        let prefix = storage.postgresql.schemaPrefix
        guard Identifier.isValidFieldName(prefix), prefix.count <= 40 else {
            throw ConfigurationError(key: "storage.postgresql.schema_prefix", "must be lower-case letters, digits and underscores, at most 40")
        }
    }
}
