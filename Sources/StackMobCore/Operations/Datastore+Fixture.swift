/// CI mode (docs/operations.md, "Use it in CI"): replacing everything an environment holds with a
/// fixture, atomically.
extension Datastore {
    /// Deletes every object of every schema and writes the fixture's users, roles and objects,
    /// in ONE transaction: a client reading meanwhile sees the old data or the fixture, never a
    /// mix. The fixture's schemas are deployed first (additive; a no-op after the first load).
    /// Returns the number of objects written.
    @discardableResult
    public func replaceAll(with fixture: Fixture.Environment) async throws -> Int {
        if !fixture.schemas.isEmpty { try await deploy(fixture.schemas) }
        let userSchema = defaultUserSchema
        if !fixture.roles.isEmpty, registry.definition(named: RoleSchema.name) == nil, let userSchema {
            try await Self.ensureRoles([:], userSchema: userSchema, storage: storage, registry: registry, now: clock.nowMilliseconds())
        }
        // Hashing is slow on purpose: done before the transaction, never holding the writer.
        var batches: [(schema: String, objects: [(id: String, body: JSONObject)])] = []
        if !fixture.users.isEmpty {
            guard let userSchema else { throw DatastoreError.unknownSchema("user") }
            batches.append((userSchema, try await prepared(fixture.users, schema: userSchema)))
        }
        if !fixture.roles.isEmpty {
            let roles = fixture.roles.sorted { $0.key < $1.key }.map { role, members in
                (id: role, body: [RoleSchema.primaryKey: .string(role), RoleSchema.membersField: .array(members.map(JSONValue.string))] as JSONObject)
            }
            batches.append((RoleSchema.name, roles))
        }
        for (schema, objects) in fixture.objects {
            let name = try Identifier.schemaName(fromRequest: schema)
            batches.append((name, try await prepared(objects, schema: name)))
        }
        let now = clock.nowMilliseconds()
        let registry = self.registry
        let ready = batches
        let fixtureUsers = Set(ready.first { $0.schema == userSchema }?.objects.map(\.id) ?? [])
        let userSchemas = self.userSchemas
        return try await storage.write { writer in
            for schema in registry.all() {
                guard userSchemas[schema.name] != nil else {
                    _ = try await writer.deleteObjects(schema, matching: .all([]), returning: nil)
                    continue
                }
                // The fixture's users come back as they were, and keep their sessions
                // (docs/operations.md, "Use it in CI"); every other user is gone, with whatever
                // signed in as it.
                let deleted = try await writer.deleteObjects(schema, matching: .all([]), returning: [])
                for id in deleted.compactMap({ $0[schema.primaryKey]?.stringValue }) where schema.name != userSchema || !fixtureUsers.contains(id) {
                    try await Self.forgetSignIns(of: id, userSchema: schema.name, writer: writer)
                }
            }
            // The roles are the fixture's now: configured members are granted afresh at the next start.
            try await writer.forgetConfiguredGrants()
            var written = 0
            for (name, objects) in ready {
                var schema = registry.definition(named: name)
                for (id, body) in objects {
                    _ = try await self.insert(body, id: id, schema: &schema, name: name, caller: .privateKey, now: now, writer: writer)
                    written += 1
                }
            }
            return written
        }
    }

    /// The user schema a fixture's `users` go to: the only one, or `user`, or the first by name.
    var defaultUserSchema: String? {
        if userSchemas.count == 1 { return userSchemas.keys.first }
        return userSchemas["user"] != nil ? "user" : userSchemas.keys.sorted().first
    }

    private func prepared(_ objects: [JSONObject], schema: String) async throws -> [(id: String, body: JSONObject)] {
        var prepared: [(id: String, body: JSONObject)] = []
        for object in objects {
            let body = try await hashingPasswords(in: object, schema: schema)
            prepared.append((try primaryKeyValue(in: body, schema: schema), body))
        }
        return prepared
    }
}
