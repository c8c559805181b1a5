/// The related-object endpoints (PROTOCOL §6.2–6.4, D5, D31). Each is one write transaction that
/// reads the parent and writes it back, so concurrent appends never lose an update.
extension Datastore {
    /// `POST /<schema>/<id>/<field>`: creates each element in the related schema and appends the
    /// ids to the parent's one-to-many relation; a missing parent is created (D5). An element that
    /// cannot be created is listed in `failed` (D4).
    public func createRelated(
        _ elements: [JSONValue], parentID: String, field: String, in schemaName: String, caller: Caller
    ) async throws -> BulkResult {
        let name = try Identifier.schemaName(fromRequest: schemaName)
        _ = try await existingSchema(name)
        guard Identifier.isValidFieldName(field) else { throw DatastoreError.invalidFieldName(field) }
        try refuseSystemField(field, in: name)
        let target = try Self.relatedSchemaName(field: field, in: registry.definition(named: name))
        // The parent's id becomes a stored primary key when the parent is created (D5).
        guard !FieldValueRules.containsNUL(parentID) else { throw DatastoreError.containsNUL(field: primaryKeyName(for: name)) }
        let prepared = try await preparedElements(elements, for: target)
        let now = clock.nowMilliseconds()
        return try await storage.write { writer in
            let graph = RelationGraphWriter(datastore: self, writer: writer, caller: caller, now: now)
            // The field may have been created since the check above: decide again on committed state.
            let target = try Self.relatedSchemaName(field: field, in: graph.schema(named: name))
            let result = try await BulkResult.collecting(prepared) { id, body in
                _ = try await graph.write(body, id: id, in: target, relations: [:], upsert: false)
            }
            let existing: JSONObject?
            if let schema = graph.schema(named: name) {
                existing = try await writer.fetchObject(schema, id: parentID)
            } else {
                existing = nil
            }
            let ids = RelationLoader.ids(in: existing?[field]) + result.succeeded
            _ = try await graph.write([field: .array(ids.map(JSONValue.string))], id: parentID, in: name, relations: [field: target], upsert: true)
            return result
        }
    }

    /// `PUT /<schema>/<id>/<field>`: appends to an array (duplicates kept) or to a one-to-many
    /// relation (ids kept once). Returns the whole parent.
    public func appendValues(
        _ values: [JSONValue], parentID: String, field: String, in schemaName: String, caller: Caller
    ) async throws -> JSONObject {
        let name = try Identifier.schemaName(fromRequest: schemaName)
        try await authorizeVerb(.update, on: name, caller: caller)
        guard try await committedSchema(name) != nil else { throw DatastoreError.objectNotFound }
        guard Identifier.isValidFieldName(field) else { throw DatastoreError.invalidFieldName(field) }
        try refuseSystemField(field, in: name)
        let now = clock.nowMilliseconds()
        let (object, schema) = try await storage.write { writer in
            guard let schema = self.registry.definition(named: name) else { throw DatastoreError.objectNotFound }
            let existing = try await self.existingForUpdate(schema, id: parentID, caller: caller, writer: writer)
            switch schema.type(of: field) {
            case nil, .array?, .relation(_, toMany: true)?: break
            default: throw RelationError.notACollection(field: field)
            }
            let appended = (existing[field]?.arrayValue ?? []) + values
            let (updated, evolved) = try await self.applyUpdate(
                [field: .array(appended)], to: existing, id: parentID, schema: schema, caller: caller, now: now, writer: writer)
            return (try await self.answer(updated, schema: evolved, caller: caller, reader: writer), evolved)
        }
        return present(object, schema: schema)
    }

    /// `DELETE /<schema>/<id>/<field>/<values>`: removes every occurrence of the values (D31); with
    /// `cascade`, also deletes the related objects with those ids.
    public func removeValues(
        _ rawValues: [String], parentID: String, field: String, in schemaName: String, cascade: Bool, caller: Caller
    ) async throws {
        let name = try Identifier.schemaName(fromRequest: schemaName)
        try await authorizeVerb(.update, on: name, caller: caller)
        guard try await committedSchema(name) != nil else { throw DatastoreError.objectNotFound }
        guard Identifier.isValidFieldName(field) else { throw DatastoreError.invalidFieldName(field) }
        try refuseSystemField(field, in: name)
        let now = clock.nowMilliseconds()
        try await storage.write { writer in
            guard let schema = self.registry.definition(named: name) else { throw DatastoreError.objectNotFound }
            let existing = try await self.existingForUpdate(schema, id: parentID, caller: caller, writer: writer)
            let remaining: JSONValue
            switch schema.type(of: field) {
            case nil:
                // No object has the field: there is nothing to remove.
                return
            case .array(let element)?:
                let removed = rawValues.compactMap { QueryBinder.typedValue($0, as: element.scalarType) }
                remaining = .array((existing[field]?.arrayValue ?? []).filter { !removed.contains($0) })
            case .relation(let target, let toMany)?:
                let removed = Set(rawValues)
                let kept = RelationLoader.ids(in: existing[field]).filter { !removed.contains($0) }
                remaining = toMany ? .array(kept.map(JSONValue.string)) : kept.first.map(JSONValue.string) ?? .null
                if cascade, let targetSchema = self.registry.definition(named: target) {
                    // Cascading needs delete on the target; related objects the caller may not
                    // delete are only unlinked.
                    let rows = try await self.authorize(.delete, on: target, definition: targetSchema, caller: caller, reader: writer)
                    let isUserSchema = self.userSchemas[target] != nil
                    for id in rawValues {
                        let deleted: Bool
                        if let rows {
                            let matching = TypedFilter.all([Self.primaryKeyEquals(id, schema: targetSchema), .access(rows)])
                            deleted = try await !writer.deleteObjects(targetSchema, matching: matching, returning: []).isEmpty
                        } else {
                            deleted = try await writer.delete(targetSchema, id: id)
                        }
                        if deleted && isUserSchema { try await self.forgetUser(id, userSchema: target, now: now, writer: writer) }
                    }
                }
            default:
                throw RelationError.notACollection(field: field)
            }
            _ = try await self.applyUpdate([field: remaining], to: existing, id: parentID, schema: schema, caller: caller, now: now, writer: writer)
        }
    }

    /// The primary key, timestamps and owner are not collections.
    private func refuseSystemField(_ field: String, in name: String) throws {
        let schema = registry.definition(named: name) ?? SchemaDefinition(name: name, primaryKey: primaryKeyName(for: name))
        if schema.isSystemField(field) { throw RelationError.notACollection(field: field) }
    }

    /// The schema related objects of `field` go to: its declared target, or for a field that does
    /// not exist yet a schema named like the field, primary key `<field>_id` (§6.2).
    static func relatedSchemaName(field: String, in schema: SchemaDefinition?) throws -> String {
        switch schema?.type(of: field) {
        case .relation(let target, toMany: true)?: return target
        case nil: return try Identifier.schemaName(fromRequest: field)
        default: throw RelationError.notAOneToManyRelation(field: field)
        }
    }
}
