/// The object datastore of one environment: schemas, type inference and enforcement, and CRUD
/// (PROTOCOL §4). The HTTP layer decodes requests, calls these methods and encodes the results.
public struct Datastore: Sendable {
    public let registry: SchemaRegistry
    /// Whether unknown schemas and fields are created on first write (development).
    public let inferenceEnabled: Bool
    let storage: any StorageEngine
    let userSchemas: [String: UserSchema]
    let clock: any ServerClock
    let passwordHasher: PasswordHasher
    /// Schema permissions (PROTOCOL §12), live: a deploy or the admin API changes them.
    let accessPolicy: LiveAccessPolicy
    var access: AccessPolicy { accessPolicy.current }
    /// Takes in other instances' schema changes (`refreshSchemas`), one check for the requests
    /// that arrive together; none when no other process shares the database.
    private let schemaRefresh: SharedCheck<Void>?
    /// The most bytes of stored values an expansion reads (`RelationLoader.byteLimit`).
    let expansionByteLimit: Int?

    /// Opens the datastore: loads the persisted schema definitions and makes sure every configured
    /// user schema exists with its login field as primary key.
    public static func open(
        storage: any StorageEngine,
        registry: SchemaRegistry,
        inferenceEnabled: Bool,
        userSchemas: [UserSchema],
        relationships: [String: [String: FieldType]] = [:],
        schemas: [SchemaDeclaration] = [],
        clock: any ServerClock = SystemClock(),
        passwordHasher: PasswordHasher = PasswordHasher(),
        access: AccessPolicy = AccessPolicy(),
        expansionByteLimit: Int? = StackMobConfiguration().maxExpandedResponseBytes
    ) async throws -> Datastore {
        for definition in try await storage.loadSchemaDefinitions() {
            registry.publish(definition)
        }
        for userSchema in userSchemas {
            try await ensureUserSchema(userSchema, storage: storage, registry: registry)
        }
        try await ensureRelationships(relationships, userSchemas: userSchemas, storage: storage, registry: registry)
        if access.usesRoles, let userSchema = userSchemas.first {
            try await ensureRoles(access.roles, userSchema: userSchema.name, storage: storage, registry: registry, now: clock.nowMilliseconds())
        }
        try await ensureDeclaredSchemas(schemas, userSchemas: userSchemas, storage: storage, registry: registry)
        // Permissions a deploy recorded apply to the schemas the configuration leaves unset.
        var live = access
        live.schemas.merge(try await storage.loadSchemaSettings().permissions) { configured, _ in configured }
        let accessPolicy = LiveAccessPolicy(live, configuredSchemas: Set(access.schemas.keys))
        return Datastore(
            registry: registry,
            inferenceEnabled: inferenceEnabled,
            storage: storage,
            userSchemas: Dictionary(userSchemas.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first }),
            clock: clock,
            passwordHasher: passwordHasher,
            accessPolicy: accessPolicy,
            schemaRefresh: storage.isShared ? SharedCheck { _ = try await takeInSchemaChanges(storage: storage, accessPolicy: accessPolicy) } : nil,
            expansionByteLimit: expansionByteLimit)
    }

    private static func ensureUserSchema(_ userSchema: UserSchema, storage: any StorageEngine, registry: SchemaRegistry) async throws {
        try await storage.write { writer in
            guard let existing = registry.definition(named: userSchema.name) else {
                try await writer.evolveSchema(from: nil, to: userSchema.definition)
                return
            }
            guard existing.primaryKey == userSchema.loginField else {
                throw DatastoreSetupError.userSchemaConflict(
                    schema: userSchema.name,
                    reason: "its stored primary key is '\(existing.primaryKey)', but the configured login field is '\(userSchema.loginField)'")
            }
            switch existing.type(of: userSchema.passwordField) {
            case nil:
                try await writer.evolveSchema(from: existing, to: existing.adding([userSchema.passwordField: .password]))
            case .password?:
                break
            case let other?:
                throw DatastoreSetupError.userSchemaConflict(
                    schema: userSchema.name,
                    reason: "its field '\(userSchema.passwordField)' already holds \(other.name) values, so it cannot be the password field")
            }
            try await adoptUnownedUsers(existing, writer: writer)
        }
    }

    /// `sm_owner` of a user object: the user itself.
    static func ownerReference(userSchema: String, id: String) -> String {
        "\(userSchema)/\(id)"
    }

    /// Makes every user object without an owner its own owner: users created before user objects
    /// owned themselves (and any whose owner a private-key request cleared). Their `lastmoddate`
    /// stays: the user changed nothing. After the first start this finds nothing.
    private static func adoptUnownedUsers(_ schema: SchemaDefinition, writer: any StorageWriter) async throws {
        let unowned = TypedFilter.condition(TypedCondition(field: SchemaDefinition.owner, target: .scalar, operation: .isNull(true)))
        while true {
            let batch = try await writer.fetchObjects(schema, query: ObjectQuery(filter: unowned, limit: 500)).objects
            for object in batch {
                guard let id = object[schema.primaryKey]?.stringValue else { continue }
                try await writer.update(schema, id: id, changes: [SchemaDefinition.owner: .string(ownerReference(userSchema: schema.name, id: id))])
            }
            guard batch.count == 500 else { return }
        }
    }

    // MARK: - Reads

    /// Takes in the schema changes other instances made to a shared database (PostgreSQL):
    /// definitions and indexes, and the permissions a deploy or the admin API recorded there
    /// (recording them bumps the same version). Configured permissions still win, as at start.
    /// Every change committed before the call is in force when it returns, except one whose
    /// notification has not reached this instance yet (`StorageEngine.mayHaveSchemaChanges`):
    /// a name the registry lacks is then looked up again before it is refused
    /// (`committedSchema`, `currentDefinition`, `retryingUnknownField`), and a permission
    /// change applies a moment later (docs/operations.md, "More than one instance").
    public func refreshSchemas() async throws {
        guard let schemaRefresh, storage.mayHaveSchemaChanges else { return }
        try await schemaRefresh.value()
    }

    /// The schema as the database now holds it, when another instance may have changed it
    /// since this request's check (which requests arriving together share): asked before a
    /// request is refused for naming a field the registry lacks, which another instance may
    /// have just created. Nil on an engine served by this process alone, whose registry is
    /// always current.
    func currentDefinition(of schema: SchemaDefinition) async throws -> SchemaDefinition? {
        guard storage.isShared else { return nil }
        try await Self.takeInSchemaChanges(storage: storage, accessPolicy: accessPolicy)
        return registry.definition(named: schema.name)
    }

    /// Whether anything changed.
    @discardableResult
    private static func takeInSchemaChanges(storage: any StorageEngine, accessPolicy: LiveAccessPolicy) async throws -> Bool {
        guard let settings = try await storage.refreshSchemas() else { return false }
        for (schema, permissions) in settings.permissions where !accessPolicy.configuredSchemas.contains(schema) {
            accessPolicy.set(permissions, for: schema)
        }
        return true
    }

    /// `GET /<schema>/<id>`. An object the caller may not read is not found (§12.2). Server-internal
    /// reads pass `.privateKey`: permissions restrict clients, not the server itself.
    public func read(id: String, in schemaName: String, select: [String]? = nil, expand: Int = 0, caller: Caller) async throws -> JSONObject {
        try await authorizeVerb(.read, on: schemaName, caller: caller)
        guard let schema = try await committedSchema(schemaName) else { throw DatastoreError.objectNotFound }
        try validateSelect(select, schema: schema, expand: expand)
        let object = try await expanding(depth: expand, caller: caller) { loader in
            try await storage.readByKey { reader -> JSONObject? in
                let rows = try await self.authorize(.read, on: schema.name, definition: schema, caller: caller, reader: reader)
                guard let found = try await self.fetchVisible(schema, id: id, filter: rows, reader: reader) else { return nil }
                return try await loader.expand([found], schema: schema, depth: expand, reader: reader)[0]
            }
        }
        guard let object else { throw DatastoreError.objectNotFound }
        return present(selecting(select, from: object, schema: schema), schema: schema)
    }

    /// `DELETE /<schema>/<id>`. An object the caller may not delete is not found (§12.2).
    public func delete(id: String, in schemaName: String, caller: Caller) async throws {
        try await authorizeVerb(.delete, on: schemaName, caller: caller)
        guard let schema = try await committedSchema(schemaName) else { throw DatastoreError.objectNotFoundForDelete }
        let isUserSchema = userSchemas[schema.name] != nil
        let deleted = try await storage.write { writer in
            let deleted: Bool
            if let rows = try await self.authorize(.delete, on: schema.name, definition: schema, caller: caller, reader: writer) {
                let matching = TypedFilter.all([Self.primaryKeyEquals(id, schema: schema), .access(rows)])
                deleted = try await !writer.deleteObjects(schema, matching: matching, returning: []).isEmpty
            } else {
                deleted = try await writer.delete(schema, id: id)
            }
            if deleted && isUserSchema { try await self.forgetUser(id, userSchema: schema.name, now: self.clock.nowMilliseconds(), writer: writer) }
            return deleted
        }
        guard deleted else { throw DatastoreError.objectNotFoundForDelete }
    }

    // MARK: - Helpers

    /// The committed definition of a schema named in a request that only reads or changes what
    /// exists; nil when there is none, with or without inference: reads never create schemas,
    /// and an unknown name is not found (§10.4). A schema exists once written or declared.
    func committedSchema(_ rawName: String) async throws -> SchemaDefinition? {
        try await lookUp(try Identifier.schemaName(fromRequest: rawName))
    }

    /// The committed definition of a schema a create names; nil for a schema that does not
    /// exist yet but may be created (development).
    func existingSchema(_ rawName: String) async throws -> SchemaDefinition? {
        let name = try Identifier.schemaName(fromRequest: rawName)
        if let schema = try await lookUp(name) { return schema }
        guard inferenceEnabled else { throw DatastoreError.unknownSchema(name) }
        return nil
    }

    /// The registry's definition; on a shared engine, a name it lacks is asked of the database
    /// first: another instance may have just created the schema (`refreshSchemas`).
    private func lookUp(_ name: String) async throws -> SchemaDefinition? {
        if let schema = registry.definition(named: name) { return schema }
        guard storage.isShared else { return nil }
        try await Self.takeInSchemaChanges(storage: storage, accessPolicy: accessPolicy)
        return registry.definition(named: name)
    }

    /// Runs `body` again, once, when it names a field the registry lacks and the database holds
    /// a newer schema: another instance may have just added the field (`refreshSchemas`).
    func retryingUnknownField<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as DatastoreError {
            guard case .unknownField = error, storage.isShared, try await Self.takeInSchemaChanges(storage: storage, accessPolicy: accessPolicy)
            else { throw error }
            return try await body()
        }
    }

    /// What a client may see of a stored object: everything but password hashes.
    func present(_ object: JSONObject, schema: SchemaDefinition) -> JSONObject {
        presenter(for: schema)(object)
    }

    /// `present` for the objects of one schema: a page's objects, or a level of an expansion's,
    /// look their schema up once, not once each (docs/benchmarks.md).
    func presenter(for schema: SchemaDefinition) -> @Sendable (JSONObject) -> JSONObject {
        guard let passwordField = userSchemas[schema.name]?.passwordField else { return { $0 } }
        return { object in
            var visible = object
            visible[passwordField] = nil
            return visible
        }
    }
}

/// A stored state that contradicts the configuration; stops start-up.
public enum DatastoreSetupError: Error, CustomStringConvertible {
    case userSchemaConflict(schema: String, reason: String)
    case relationshipConflict(schema: String, reason: String)
    /// A declared schema contradicts stored data (docs/operations.md, "From development to
    /// production").
    case declarationConflict(SchemaConflict)

    public var description: String {
        switch self {
        case .userSchemaConflict(let schema, let reason): "user schema '\(schema)' cannot be used: \(reason)"
        case .relationshipConflict(let schema, let reason): "schema '\(schema)' cannot be used: \(reason)"
        case .declarationConflict(let conflict): "declared \(conflict)"
        }
    }
}
