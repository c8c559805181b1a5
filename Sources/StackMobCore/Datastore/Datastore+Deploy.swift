/// Schemas as code (issue 15): an environment's schemas as declarations, and applying
/// declarations to it while it serves.
extension Datastore {
    /// The environment's current schemas (inferred and declared) as declarations: what `schema
    /// export` prints. Password fields are left out: they come from `user_schemas`.
    public func declarations() async throws -> [SchemaDeclaration] {
        let stored = try await storage.loadSchemaSettings()
        return registry.all().map { definition in
            SchemaDeclaration(
                name: definition.name, primaryKey: definition.primaryKey, fields: definition.fields.filter { $0.value != .password },
                indexes: stored.indexes[definition.name] ?? [], permissions: access.schemas[definition.name])
        }
    }

    /// What applying `declarations` would change.
    public func plan(_ declarations: [SchemaDeclaration]) async throws -> SchemaPlan {
        try await planner().plan(declarations)
    }

    /// Applies the additive part of the plan for `declarations` in one transaction and returns
    /// it. A conflict (`SchemaConflict`) stops it before anything is written. Fields are planned
    /// again inside the transaction, against the definitions committed by then, so a field that
    /// inference added in the meantime is neither lost nor overwritten.
    @discardableResult
    public func deploy(_ declarations: [SchemaDeclaration]) async throws -> SchemaPlan {
        let base = try await planner()
        let registry = self.registry
        let policy = accessPolicy
        return try await storage.write { writer in
            var planner = base
            planner.current = Dictionary(registry.all().map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            let plan = planner.plan(declarations)
            if let conflict = plan.conflicts.first { throw conflict }
            for definition in plan.definitions(current: planner.current) {
                let base = registry.definition(named: definition.name)
                try writer.evolveSchema(from: base, to: base.map { $0.adding(definition.fields) } ?? definition)
            }
            for change in plan.changes {
                switch change {
                case .addIndex(let schema, let fields): try writer.declareIndex(schema: schema, fields: fields)
                case .setPermissions(let schema, let permissions):
                    try writer.recordPermissions(schema: schema, permissions, onCommit: { policy.set(permissions, for: schema) })
                case .createSchema, .addField, .dropField, .dropSchema: break
                }
            }
            return plan
        }
    }

    private func planner() async throws -> SchemaPlanner {
        let stored = try await storage.loadSchemaSettings()
        return SchemaPlanner(
            current: registry.all(), currentIndexes: stored.indexes, currentPermissions: access.schemas,
            loginFields: userSchemas.mapValues(\.loginField))
    }
}

extension Datastore {
    /// Schemas whose permissions the configuration sets (they win at every start).
    public var configuredPermissionSchemas: Set<String> { accessPolicy.configuredSchemas }
}
