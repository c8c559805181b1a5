/// Declared schemas (`environments.<env>.schemas`, `schemas_file`), applied at start-up.
extension Datastore {
    /// Creates the declared schemas and fields that do not exist yet, all in one transaction. A
    /// declaration that contradicts stored data stops start-up before anything is written. Indexes
    /// and permissions need no write here: they are part of the settings the engine and the
    /// access checks were given.
    static func ensureDeclaredSchemas(
        _ declarations: [SchemaDeclaration], userSchemas: [UserSchema], storage: any StorageEngine, registry: SchemaRegistry
    ) async throws {
        guard !declarations.isEmpty else { return }
        let planner = SchemaPlanner(
            current: registry.all(), loginFields: Dictionary(userSchemas.map { ($0.name, $0.loginField) }, uniquingKeysWith: { first, _ in first }))
        let plan = planner.plan(declarations)
        if let conflict = plan.conflicts.first {
            throw DatastoreSetupError.declarationConflict(conflict)
        }
        let definitions = plan.definitions(current: planner.current)
        guard !definitions.isEmpty else { return }
        try await storage.write { writer in
            for definition in definitions {
                try await writer.evolveSchema(from: registry.definition(named: definition.name), to: definition)
            }
        }
    }
}
