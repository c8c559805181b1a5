/// Compares declarations with an environment's current state and makes a `SchemaPlan`.
public struct SchemaPlanner: Sendable {
    /// The stored definitions, by name.
    public var current: [String: SchemaDefinition]
    /// Indexes that exist or are configured, by schema.
    public var currentIndexes: [String: [[String]]]
    /// Permissions in force, by schema (schemas not listed are open).
    public var currentPermissions: [String: SchemaPermissions]
    /// Login fields of the environment's user schemas, by schema: their default primary key.
    public var loginFields: [String: String]

    public init(
        current: [SchemaDefinition], currentIndexes: [String: [[String]]] = [:], currentPermissions: [String: SchemaPermissions] = [:],
        loginFields: [String: String] = [:]
    ) {
        self.current = Dictionary(current.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.currentIndexes = currentIndexes
        self.currentPermissions = currentPermissions
        self.loginFields = loginFields
    }

    public func plan(_ declarations: [SchemaDeclaration]) -> SchemaPlan {
        var plan = SchemaPlan()
        let declaredNames = Set(declarations.map(\.name))
        for declaration in declarations.sorted(by: { $0.name < $1.name }) {
            let name = declaration.name
            let stored = current[name]
            let primaryKey = declaration.primaryKey ?? stored?.primaryKey ?? loginFields[name] ?? "\(name)_id"
            if let stored {
                if stored.primaryKey != primaryKey {
                    plan.conflicts.append(SchemaConflict(
                        schema: name, field: primaryKey, reason: "declared as the primary key, but the stored primary key is '\(stored.primaryKey)'"))
                    continue
                }
            } else {
                plan.changes.append(.createSchema(name, primaryKey: primaryKey))
            }
            for (field, type) in declaration.fields.sorted(by: { $0.key < $1.key }) {
                if field == primaryKey {
                    plan.conflicts.append(SchemaConflict(schema: name, field: field, reason: "is the primary key and cannot be declared as a field"))
                    continue
                }
                switch stored?.type(of: field) {
                case nil: plan.changes.append(.addField(schema: name, field: field, type: type))
                case type?: break
                case let other?:
                    plan.conflicts.append(SchemaConflict(
                        schema: name, field: field, reason: "declared as \(type.name), but it holds \(other.name) values"))
                }
                if let target = type.relationTarget, !declaredNames.contains(target), current[target] == nil {
                    plan.conflicts.append(SchemaConflict(
                        schema: name, field: field, reason: "is a relationship to '\(target)', a schema that does not exist and is not declared",
                        isMissingTarget: true))
                }
            }
            for index in declaration.indexes where !(currentIndexes[name] ?? []).contains(index) {
                plan.changes.append(.addIndex(schema: name, fields: index))
            }
            if let permissions = declaration.permissions, permissions != (currentPermissions[name] ?? .open) {
                plan.changes.append(.setPermissions(schema: name, permissions))
            }
            if let stored {
                for field in stored.fields.keys.sorted() where declaration.fields[field] == nil && stored.fields[field] != .password {
                    plan.extra.append(.dropField(schema: name, field: field))
                }
            }
        }
        // A schema still pointed to by a relationship, and `aclrole` (managed by `roles`), stay.
        var targets: Set<String> = [RoleSchema.name]
        for declaration in declarations {
            for type in declaration.fields.values { if let target = type.relationTarget { targets.insert(target) } }
            for type in current[declaration.name]?.fields.values ?? [:].values { if let target = type.relationTarget { targets.insert(target) } }
        }
        for name in current.keys.sorted() where !declaredNames.contains(name) && loginFields[name] == nil && !targets.contains(name) {
            plan.extra.append(.dropSchema(name))
        }
        return plan
    }
}
