/// What `_sm_schema_settings` and the database's indexes hold (docs/operations.md, "From
/// development to production").
public struct StoredSchemaSettings: Sendable, Equatable {
    public var permissions: [String: SchemaPermissions] = [:]
    /// Declared or existing indexes, by schema (the ones every table has left out).
    public var indexes: [String: [[String]]] = [:]

    public init(permissions: [String: SchemaPermissions] = [:], indexes: [String: [[String]]] = [:]) {
        self.permissions = permissions
        self.indexes = indexes
    }
}
