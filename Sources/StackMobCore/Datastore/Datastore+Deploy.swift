/// Schemas as code (docs/operations.md, "From development to production"): an environment's schemas
/// as declarations, and applying declarations to it while it serves.
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
    ///
    /// With `dropping`, what the environment holds and the declarations do not (`plan.extra`) is
    /// dropped in the same transaction (`deploy --drop`; the caller makes a backup first).
    @discardableResult
    public func deploy(_ declarations: [SchemaDeclaration], dropping: Bool = false) async throws -> SchemaPlan {
        let base = try await planner()
        let registry = self.registry
        let policy = accessPolicy
        return try await storage.write { writer in
            var planner = base
            planner.current = Dictionary(registry.all().map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            let plan = planner.plan(declarations)
            if let conflict = plan.conflicts.first { throw conflict }
            var latest = planner.current
            for definition in plan.definitions(current: planner.current) {
                let base = registry.definition(named: definition.name)
                let next = base.map { $0.adding(definition.fields) } ?? definition
                try await writer.evolveSchema(from: base, to: next)
                latest[next.name] = next
            }
            for change in plan.changes {
                switch change {
                case .addIndex(let schema, let fields): try await writer.declareIndex(schema: schema, fields: fields)
                case .setPermissions(let schema, let permissions):
                    try await writer.recordPermissions(schema: schema, permissions, onCommit: { policy.set(permissions, for: schema) })
                case .createSchema, .addField, .dropField, .dropSchema: break
                }
            }
            if dropping {
                for change in plan.extra {
                    switch change {
                    case .dropField(let schema, let field):
                        if let definition = latest[schema] { latest[schema] = try await writer.dropField(definition, field: field) }
                    case .dropSchema(let name):
                        if let definition = latest[name] { try await writer.dropSchema(definition) }
                    case .createSchema, .addField, .addIndex, .setPermissions: break
                    }
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
