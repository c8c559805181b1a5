/// Schema support for binary fields (PROTOCOL §7, §6.6).
extension Datastore {
    /// Adds fields that do not exist yet, in their own transaction, before the write that uses
    /// them: a binary field's value is a URL, which inference alone would call a string.
    /// Existing fields keep their type (the FieldTypes header is ignored for them, §6.6).
    public func declareFields(_ fields: [String: FieldType], in schemaName: String) async throws {
        let name = try Identifier.schemaName(fromRequest: schemaName)
        guard inferenceEnabled else { return }
        try await storage.write { writer in
            let existing = self.registry.definition(named: name)
            let next = (existing ?? SchemaDefinition(name: name, primaryKey: self.primaryKeyName(for: name))).adding(fields)
            if next != existing {
                guard next.fields.count <= SchemaDefinition.maxInferredFields else {
                    throw DatastoreError.tooManyFields(schema: name, limit: SchemaDefinition.maxInferredFields)
                }
                try await writer.evolveSchema(from: existing, to: next)
            }
        }
    }

    /// The primary key a create will use: the one in the body, or a generated one written into
    /// the body (a file URL contains the id, so it must be known before the write).
    public func assigningPrimaryKey(_ body: JSONObject, in schemaName: String) throws -> (body: JSONObject, id: String) {
        let name = try Identifier.schemaName(fromRequest: schemaName)
        let id = try primaryKeyValue(in: body, schema: name)
        var assigned = body
        assigned[primaryKeyName(for: name)] = .string(id)
        return (assigned, id)
    }
}
