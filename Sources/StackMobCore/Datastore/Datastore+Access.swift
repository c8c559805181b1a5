/// Schema permissions on every path that touches data (PROTOCOL §12). Every check runs inside
/// the read snapshot or write transaction it protects, so a role lookup and the data it guards
/// are seen at the same instant.
extension Datastore {
    /// Checks `verb` on `schemaName` for `caller`. Throws `AccessError` when refused; returns nil
    /// when every object may be touched, else the filter that admits the visible ones, for the
    /// statement that reads, updates or deletes them.
    func authorize(
        _ verb: AccessVerb, on schemaName: String, definition: SchemaDefinition?, caller: Caller, reader: any StorageReader
    ) async throws -> RowFilter? {
        switch AccessDecision.of(access.level(verb, on: schemaName), verb: verb, caller: caller) {
        case .allow:
            return nil
        case .deny(let error):
            throw error
        case .allowIfMember(let role):
            guard try await isMember(caller, of: role, reader: reader) else { throw AccessError.insufficientAuthorization }
            return nil
        case .allowRows(let rule):
            return rowFilter(rule, schema: definition, caller: caller)
        }
    }

    /// Like `authorize`, for reads of related objects (expansion): a refusal hides the objects
    /// instead of failing the request. Nil = all rows; `.nothing` = none.
    func readFilter(for schema: SchemaDefinition, caller: Caller, reader: any StorageReader) async throws -> RowFilter? {
        do {
            return try await authorize(.read, on: schema.name, definition: schema, caller: caller, reader: reader)
        } catch is AccessError {
            return .nothing
        }
    }

    /// The stored object `id` if `filter` admits it (nil filter: any stored object).
    func fetchVisible(_ schema: SchemaDefinition, id: String, filter: RowFilter?, reader: any StorageReader) async throws -> JSONObject? {
        guard let filter else { return try await reader.fetchObject(schema, id: id) }
        let query = ObjectQuery(filter: .all([Self.primaryKeyEquals(id, schema: schema), .access(filter)]), limit: 1)
        return try await reader.fetchObjects(schema, query: query).objects.first
    }

    /// `filter` narrowed to what `rows` admits.
    static func restricting(_ filter: TypedFilter?, to rows: RowFilter?) -> TypedFilter? {
        guard let rows else { return filter }
        guard let filter else { return .access(rows) }
        return .all([filter, .access(rows)])
    }

    static func primaryKeyEquals(_ id: String, schema: SchemaDefinition) -> TypedFilter {
        .condition(TypedCondition(field: schema.primaryKey, target: .scalar, operation: .equal(.string(id))))
    }

    // MARK: - Roles (D14)

    /// Whether the caller's id is among the `users` of the role's `aclrole` object.
    private func isMember(_ caller: Caller, of role: String, reader: any StorageReader) async throws -> Bool {
        guard case .user(let userSchema, let id) = caller, let roles = registry.definition(named: RoleSchema.name),
            let object = try await reader.fetchObject(roles, id: role)
        else { return false }
        // Members are users of the schema `users` points to.
        if case .relation(let target, _)? = roles.type(of: RoleSchema.membersField), target != userSchema { return false }
        return RelationLoader.ids(in: object[RoleSchema.membersField]).contains(id)
    }

    // MARK: - Row rules

    private func rowFilter(_ rule: AccessDecision.RowRule, schema: SchemaDefinition?, caller: Caller) -> RowFilter {
        guard case .user(let userSchema, let id) = caller, let schema else { return .nothing }
        switch rule {
        case .owner:
            let owned = RowFilter.ownerIs("\(userSchema)/\(id)")
            // A user object owns itself (its sm_owner names it, set at creation); the primary key
            // still admits it should a private-key request have given it another owner, so the
            // user can always read and update itself (loggedInUser).
            guard schema.name == userSchema else { return owned }
            return .any([owned, .primaryKeyIs(field: schema.primaryKey, value: id)])
        case .objectRelation(let field):
            guard let toMany = Self.holdsUserIDs(schema.type(of: field), userSchema: userSchema) else { return .nothing }
            return .relationContains(field: field, toMany: toMany, id: id)
        case .ownerRelation(let field):
            let sources = userSchemas.keys.sorted().compactMap { name -> RowFilter? in
                guard let definition = registry.definition(named: name),
                    let toMany = Self.holdsUserIDs(definition.type(of: field), userSchema: userSchema)
                else { return nil }
                return .ownerAmong(userSchema: name, primaryKey: definition.primaryKey, matching: .relationContains(field: field, toMany: toMany, id: id))
            }
            return sources.isEmpty ? .nothing : .any(sources)
        }
    }

    /// Whether a field can name users of `userSchema`, and if so whether it holds several: a
    /// relationship to that schema, or (inferred in development) a string or an array of strings
    /// holding user ids. Nil for any other field, and for a field that does not exist yet.
    private static func holdsUserIDs(_ type: FieldType?, userSchema: String) -> Bool? {
        switch type {
        case .relation(let target, let toMany)? where target == userSchema: toMany
        case .string?: false
        case .array(.string)?: true
        default: nil
        }
    }
}

extension Datastore {
    /// For a write that updates the object `id` when it exists (an upsert, D2): the existing object,
    /// which the caller must be allowed to update (a hidden one is not found, §12.2); or nil when
    /// there is none, once the caller is found allowed to create.
    func existingForUpsert(
        _ schema: SchemaDefinition?, name: String, id: String, caller: Caller, writer: any StorageWriter
    ) async throws -> JSONObject? {
        guard let schema, let existing = try await writer.fetchObject(schema, id: id) else {
            _ = try await authorize(.create, on: name, definition: schema, caller: caller, reader: writer)
            return nil
        }
        if let rows = try await authorize(.update, on: name, definition: schema, caller: caller, reader: writer),
            try await fetchVisible(schema, id: id, filter: rows, reader: writer) == nil
        {
            throw DatastoreError.objectNotFound
        }
        return existing
    }

    /// The existing object `id` the caller may update; not found when missing or hidden.
    func existingForUpdate(_ schema: SchemaDefinition, id: String, caller: Caller, writer: any StorageWriter) async throws -> JSONObject {
        let rows = try await authorize(.update, on: schema.name, definition: schema, caller: caller, reader: writer)
        guard let existing = try await fetchVisible(schema, id: id, filter: rows, reader: writer) else { throw DatastoreError.objectNotFound }
        return existing
    }
}

extension Datastore {
    /// Before a write stores files for the object `id` (PROTOCOL §7): refuses what the write
    /// itself would refuse for access (§12), so that nothing is stored, declared or revealed
    /// for a caller who may not write. An existing object is checked for update (`replacing`)
    /// or create (a plain create, which then fails as a duplicate); a new one for create.
    public func checkWriteAccess(id: String, in schemaName: String, replacing: Bool, caller: Caller) async throws {
        let name = try Identifier.schemaName(fromRequest: schemaName)
        let definition = registry.definition(named: name)
        try await storage.read { reader in
            guard replacing, let definition, try await reader.fetchObject(definition, id: id) != nil else {
                _ = try await self.authorize(.create, on: name, definition: definition, caller: caller, reader: reader)
                return
            }
            let rows = try await self.authorize(.update, on: name, definition: definition, caller: caller, reader: reader)
            guard try await self.fetchVisible(definition, id: id, filter: rows, reader: reader) != nil else {
                throw DatastoreError.objectNotFound
            }
        }
    }
}

extension Datastore {
    /// The verb-level part of a permission, checked first: a level's 401 or 405 comes before
    /// anything is said about the schema (that it has no table yet, a field it lacks in a query,
    /// an object that is not there), §12.2. Row rules are applied later, inside the statement.
    func authorizeVerb(_ verb: AccessVerb, on schemaName: String, caller: Caller) async throws {
        let name = try Identifier.schemaName(fromRequest: schemaName)
        switch AccessDecision.of(access.level(verb, on: name), verb: verb, caller: caller) {
        case .allow, .allowRows:
            return
        case .deny(let error):
            throw error
        case .allowIfMember:
            try await storage.read { reader in
                _ = try await self.authorize(verb, on: name, definition: nil, caller: caller, reader: reader)
            }
        }
    }
}

extension Datastore {
    /// What a write answers (§12): the object as written, or only its primary key when the
    /// caller may not read it, so that a right to create or update never works as a right to
    /// read what others stored.
    func answer(_ object: JSONObject, schema: SchemaDefinition, caller: Caller, reader: any StorageReader) async throws -> JSONObject {
        guard let id = object[schema.primaryKey]?.stringValue, try await !mayRead(object, schema: schema, caller: caller, reader: reader)
        else { return object }
        return [schema.primaryKey: .string(id)]
    }

    /// Whether the caller may read the stored object `object` (as stored, with its primary key).
    func mayRead(_ object: JSONObject, schema: SchemaDefinition, caller: Caller, reader: any StorageReader) async throws -> Bool {
        guard let rows = try await readFilter(for: schema, caller: caller, reader: reader) else { return true }
        guard let id = object[schema.primaryKey]?.stringValue else { return false }
        return try await fetchVisible(schema, id: id, filter: rows, reader: reader) != nil
    }
}
