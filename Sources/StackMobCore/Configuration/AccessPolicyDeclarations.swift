/// Schema permissions and roles in configuration (`environments.<env>.permissions` and
/// `.roles`, PROTOCOL §12, D14):
///
///     "permissions": {"todo": {"create": "logged_in", "read": "owner", "update": "owner", "delete": "private_key"},
///                     "note": {"all": "relation:collaborators"}}
///     "roles": {"admin": ["alice", "bob"]}
///
/// `all` sets every verb; a verb named next to it overrides it. Verbs left out stay `open`.
public enum AccessPolicyDeclarations {
    static let levelSpellings =
        "open, logged_in, owner, role:<name>, relation:<field>, owner_relation:<field>, private_key, not_allowed"

    static func permissions(_ tree: JSONObject, key: String) throws -> [String: SchemaPermissions] {
        var parsed: [String: SchemaPermissions] = [:]
        for (schema, value) in tree {
            let schemaKey = "\(key).\(schema)"
            guard Identifier.isValidSchemaName(schema), !Identifier.isReservedSchemaName(schema) else {
                throw ConfigurationError(key: schemaKey, "'\(schema)' is not a valid schema name")
            }
            guard let verbs = value.objectValue, !verbs.isEmpty else {
                throw ConfigurationError(key: schemaKey, "must be an object of verb (create, read, update, delete or all): level")
            }
            var permissions = SchemaPermissions.open
            if let all = verbs["all"] {
                let level = try self.level(all, key: "\(schemaKey).all")
                permissions = SchemaPermissions(all: level)
            }
            for (verbName, text) in verbs.sorted(by: { $0.key < $1.key }) where verbName != "all" {
                guard let verb = AccessVerb(rawValue: verbName) else {
                    throw ConfigurationError(key: "\(schemaKey).\(verbName)", "unknown verb (known: create, read, update, delete, all)")
                }
                permissions.set(try level(text, key: "\(schemaKey).\(verbName)"), for: verb)
            }
            parsed[schema] = permissions
        }
        return parsed
    }

    static func roles(_ tree: JSONObject, key: String) throws -> [String: [String]] {
        var parsed: [String: [String]] = [:]
        for (role, value) in tree {
            let roleKey = "\(key).\(role)"
            // The same names `role:<name>` accepts.
            guard Identifier.isValidFieldName(role) else {
                throw ConfigurationError(key: roleKey, "'\(role)' is not a valid role name (lower-case letters, digits, underscores)")
            }
            guard let members = value.arrayValue?.compactMap(\.stringValue), members.count == value.arrayValue?.count, !members.contains("") else {
                throw ConfigurationError(key: roleKey, "must be an array of user ids (the user schema's primary keys)")
            }
            parsed[role] = members
        }
        return parsed
    }

    private static func level(_ value: JSONValue, key: String) throws -> PermissionLevel {
        guard let text = value.stringValue, let level = PermissionLevel(configuration: text) else {
            throw ConfigurationError(key: key, "must be one of \(levelSpellings), with a valid field or role name")
        }
        return level
    }
}
