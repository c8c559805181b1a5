/// The schema permissions of one environment (`environments.<env>.permissions`, PROTOCOL §12).
/// A schema without an entry is open (inferred schemas and the default user schema start open,
/// §12.1), except `aclrole`, which only the private key may touch unless configured otherwise.
public struct AccessPolicy: Sendable, Equatable {
    public var schemas: [String: SchemaPermissions]
    /// Role members to seed into `aclrole` at start-up, by role name (D14).
    public var roles: [String: [String]]

    public init(schemas: [String: SchemaPermissions] = [:], roles: [String: [String]] = [:]) {
        self.schemas = schemas
        self.roles = roles
    }

    public func permissions(for schema: String) -> SchemaPermissions {
        if let configured = schemas[schema] { return configured }
        return schema == RoleSchema.name ? SchemaPermissions(all: .privateKey) : .open
    }

    public func level(_ verb: AccessVerb, on schema: String) -> PermissionLevel {
        permissions(for: schema).level(for: verb)
    }

    /// Whether roles are in use: then `aclrole` is created at start-up with its declared `users`
    /// relationship.
    public var usesRoles: Bool {
        !roles.isEmpty || schemas.values.contains { permissions in
            AccessVerb.allCases.contains { verb in
                if case .role = permissions.level(for: verb) { return true }
                return false
            }
        }
    }
}
