/// Schemas and relationships declared in configuration (`SchemaDeclarations`,
/// `RelationshipDeclarations`), applied at start-up.
extension Datastore {
    /// Creates declared schemas and fields that do not exist yet; a field that exists with another
    /// type stops start-up.
    static func ensureRelationships(
        _ declared: [String: [String: FieldType]], userSchemas: [UserSchema], storage: any StorageEngine, registry: SchemaRegistry
    ) async throws {
        for (schema, fields) in declared.sorted(by: { $0.key < $1.key }) {
            try await storage.write { writer in
                let loginField = userSchemas.first { $0.name == schema }?.loginField
                let existing = registry.definition(named: schema)
                var next = existing ?? SchemaDefinition(name: schema, primaryKey: loginField)
                for (field, type) in fields.sorted(by: { $0.key < $1.key }) {
                    switch next.type(of: field) {
                    case nil: next = next.adding([field: type])
                    case type?: break
                    case let other?:
                        throw DatastoreSetupError.relationshipConflict(
                            schema: schema, reason: "the configured field '\(field)' (\(type.name)) already holds \(other.name) values")
                    }
                }
                if next != existing {
                    try await writer.evolveSchema(from: existing, to: next)
                }
            }
        }
    }
}
