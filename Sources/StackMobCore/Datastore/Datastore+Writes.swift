/// Creates and updates (PROTOCOL §4.2, §4.3, §4.6, D2, D21, D25).
extension Datastore {
    public struct WriteResult: Sendable, Equatable {
        public let object: JSONObject
        /// False when an upsert updated an existing object (status 200 instead of 201, D21).
        public let created: Bool
    }

    public struct BulkResult: Sendable, Equatable {
        public let succeeded: [String]
        public let failed: [String]

        /// Writes each prepared element in turn, inside the caller's transaction. An element
        /// without a body, or whose write is refused, is listed in `failed` and does not stop the
        /// others (§4.3, D4); any other error ends the whole transaction.
        static func collecting(
            _ prepared: [(id: String, body: JSONObject?)], _ write: (_ id: String, _ body: JSONObject) async throws -> Void
        ) async throws -> BulkResult {
            var succeeded: [String] = []
            var failed: [String] = []
            for (id, body) in prepared {
                guard let body else {
                    failed.append(id)
                    continue
                }
                do {
                    try await write(id, body)
                    succeeded.append(id)
                } catch is DatastoreError {
                    failed.append(id)
                }
            }
            return BulkResult(succeeded: succeeded, failed: failed)
        }
    }

    /// `POST /<schema>` with one object. With `upsert` (an `X-StackMob-Relations` header, D2) an
    /// existing object with the same primary key is updated instead of refused with 409.
    public func create(_ body: JSONObject, in schemaName: String, caller: Caller, upsert: Bool = false) async throws -> WriteResult {
        let name = try Identifier.schemaName(fromRequest: schemaName)
        _ = try await existingSchema(name)
        let body = try await hashingPasswords(in: body, schema: name)
        let id = try primaryKeyValue(in: body, schema: name)
        let now = clock.nowMilliseconds()
        let (result, schema) = try await retryingUnknownField { try await retryingLostInsertRace(upsert) { try await self.storage.write { writer in
            var schema = self.registry.definition(named: name)
            if upsert, let current = schema, let existing = try await self.existingForUpsert(schema, name: name, id: id, caller: caller, writer: writer) {
                let (object, updated) = try await self.applyUpdate(body, to: existing, id: id, schema: current, caller: caller, now: now, writer: writer)
                return (WriteResult(object: object, created: false), updated)
            }
            _ = try await self.authorize(.create, on: name, definition: schema, caller: caller, reader: writer)
            let object = try await self.insert(body, id: id, schema: &schema, name: name, caller: caller, now: now, writer: writer)
            // `insert` always leaves the schema it wrote to in `schema`.
            return (WriteResult(object: object, created: true), schema ?? SchemaDefinition(name: name))
        } } }
        return WriteResult(object: present(result.object, schema: schema), created: result.created)
    }

    /// `POST /<schema>` with an array: every element in one transaction; an element that fails
    /// is listed in `failed` and does not stop the others (§4.3, D4).
    public func createMany(_ elements: [JSONValue], in schemaName: String, caller: Caller) async throws -> BulkResult {
        let name = try Identifier.schemaName(fromRequest: schemaName)
        _ = try await existingSchema(name)
        let prepared = try await preparedElements(elements, for: name)
        let now = clock.nowMilliseconds()
        return try await storage.write { writer in
            var schema = self.registry.definition(named: name)
            _ = try await self.authorize(.create, on: name, definition: schema, caller: caller, reader: writer)
            return try await BulkResult.collecting(prepared) { id, body in
                _ = try await self.insert(body, id: id, schema: &schema, name: name, caller: caller, now: now, writer: writer)
            }
        }
    }

    /// `PUT /<schema>/<id>`: merges the body into the stored object.
    public func update(id: String, in schemaName: String, changes body: JSONObject, caller: Caller) async throws -> JSONObject {
        let name = try Identifier.schemaName(fromRequest: schemaName)
        // The primary-key check comes before the existence check (§4.6).
        if let sent = body[primaryKeyName(for: name)], sent != .string(id) {
            throw DatastoreError.primaryKeyChange
        }
        try await authorizeVerb(.update, on: name, caller: caller)
        guard try await committedSchema(name) != nil else { throw DatastoreError.objectNotFound }
        let body = try await preparingPasswordChange(in: body, schema: name, id: id, caller: caller)
        let now = clock.nowMilliseconds()
        let (object, schema) = try await retryingUnknownField { try await storage.write { writer in
            guard let schema = self.registry.definition(named: name) else { throw DatastoreError.objectNotFound }
            let existing = try await self.existingForUpdate(schema, id: id, caller: caller, writer: writer)
            let (updated, evolved) = try await self.applyUpdate(body, to: existing, id: id, schema: schema, caller: caller, now: now, writer: writer)
            return (try await self.answer(updated, schema: evolved, caller: caller, reader: writer), evolved)
        } }
        return present(object, schema: schema)
    }

    /// Runs an upsert's transaction again when its insert lost a race: another transaction
    /// inserted the same primary key after this one found none (several connections or
    /// instances on PostgreSQL; never on SQLite, whose writes run one at a time). The other has
    /// committed by then, so the next run finds the object and updates it, counters included.
    /// A duplicate that persists (an object the caller may not see) is the 409 it always was.
    func retryingLostInsertRace<T>(_ upsert: Bool, _ write: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await write()
            } catch DatastoreError.duplicateKey where upsert && attempt < 3 {
                attempt += 1
            }
        }
    }

    // MARK: - Inside the write transaction

    /// Inserts one new object, evolving `schema` (carried across the elements of a bulk create)
    /// with any fields it introduces. Returns the object as stored.
    func insert(
        _ body: JSONObject, id: String, schema: inout SchemaDefinition?, name: String, caller: Caller, now: Int64,
        writer: any StorageWriter, relations: [String: String] = [:]
    ) async throws -> JSONObject {
        guard inferenceEnabled || schema != nil else { throw DatastoreError.unknownSchema(name) }
        let current = schema ?? SchemaDefinition(name: name, primaryKey: primaryKeyName(for: name))
        try requireHashedPassword(in: body, schema: name)
        let planner = ObjectWritePlanner(inferenceEnabled: inferenceEnabled, caller: caller, relations: relations)
        let plan = try planner.plan(body, schema: current, mode: .create)
        var object = plan.values.filter { !$0.value.isNull }
        object[current.primaryKey] = .string(id)
        object[SchemaDefinition.createdDate] = object[SchemaDefinition.createdDate] ?? .integer(now)
        object[SchemaDefinition.lastModifiedDate] = object[SchemaDefinition.lastModifiedDate] ?? .integer(now)
        if object[SchemaDefinition.owner] == nil {
            // A user object is its own owner (PROTOCOL §12.1; the iOS SDK's specs read it), whoever
            // creates it; any other object belongs to the user who creates it (D15).
            if userSchemas[name] != nil {
                object[SchemaDefinition.owner] = .string(Self.ownerReference(userSchema: name, id: id))
            } else if let owner = caller.ownerReference {
                object[SchemaDefinition.owner] = .string(owner)
            }
        }
        if schema == nil || plan.definition != current {
            try await writer.evolveSchema(from: schema, to: plan.definition)
        }
        schema = plan.definition
        do {
            try await writer.insert(object, into: plan.definition)
        } catch StorageError.duplicateKey {
            throw DatastoreError.duplicateKey(schema: name, id: id)
        }
        return object
    }

    /// Merges `body` into `existing`; returns the merged object and the schema as it now stands.
    ///
    /// Every save of a user's password passes here (PUT, upserts nested or not, the admin API
    /// and console, `resetPassword`): only the private key may change one this way, and a new
    /// password ends every session and the temporary password of the user, unless the caller
    /// (`resetPassword`, which keeps its own session) revokes them itself.
    func applyUpdate(
        _ body: JSONObject, to existing: JSONObject, id: String, schema: SchemaDefinition, caller: Caller, now: Int64,
        writer: any StorageWriter, relations: [String: String] = [:], revokingSessions: Bool = true
    ) async throws -> (JSONObject, SchemaDefinition) {
        let newPassword = userSchemas[schema.name].map { body[$0.passwordField] != nil } ?? false
        if newPassword, let userSchema = userSchemas[schema.name] {
            guard caller.isPrivateKey else { throw DatastoreError.passwordChangeNeedsReset(field: userSchema.passwordField) }
            try requireHashedPassword(in: body, schema: schema.name)
        }
        // A counter's answer depends on the stored value (an overflow is a 400, a sum a 200):
        // for a caller who may update but not read, thirty of them would find a hidden number.
        if body.keys.contains(where: { $0.hasSuffix(ObjectWritePlanner.incrementSuffix) }),
            try await !mayRead(existing, schema: schema, caller: caller, reader: writer)
        {
            throw AccessError.insufficientAuthorization
        }
        let planner = ObjectWritePlanner(inferenceEnabled: inferenceEnabled, caller: caller, relations: relations)
        let plan = try planner.plan(body, schema: schema, mode: .update, existing: existing)
        var changes = plan.values
        if changes[SchemaDefinition.lastModifiedDate] == nil {
            // lastmoddate strictly increases on every write, even within one millisecond (§4.1).
            let previous = existing[SchemaDefinition.lastModifiedDate]?.integerValue ?? 0
            changes[SchemaDefinition.lastModifiedDate] = .integer(ObjectTimestamps.nextModification(after: previous, now: now))
        }
        if plan.definition != schema {
            try await writer.evolveSchema(from: schema, to: plan.definition)
        }
        try await writer.update(plan.definition, id: id, changes: changes)
        if newPassword && revokingSessions { try await writer.deleteCredentials(userSchema: schema.name, userID: id) }
        var merged = existing
        for (field, value) in changes {
            merged[field] = value.isNull ? nil : value
        }
        return (merged, plan.definition)
    }

    /// Stores a new password for `resetPassword` and the temporary-password login, which end
    /// the user's other sessions themselves (keeping the one that made the change).
    func storePassword(_ password: String, userID: String, schema userSchema: UserSchema) async throws {
        let hashed = try await hashingPasswords(in: [userSchema.passwordField: .string(password)], schema: userSchema.name)
        let now = clock.nowMilliseconds()
        try await storage.write { writer in
            guard let schema = self.registry.definition(named: userSchema.name), let existing = try await writer.fetchObject(schema, id: userID) else {
                throw DatastoreError.objectNotFound
            }
            _ = try await self.applyUpdate(hashed, to: existing, id: userID, schema: schema, caller: .privateKey, now: now, writer: writer, revokingSessions: false)
        }
    }

    /// A stored user password is always this server's hash. A body reaching a user schema with
    /// anything else was prepared for another target (a nested object whose relation the same
    /// request declared toward the user schema after its passwords were hashed): refused rather
    /// than stored in plain text.
    private func requireHashedPassword(in body: JSONObject, schema name: String) throws(DatastoreError) {
        // Not a string: the type check refuses it as it refuses any value of the wrong type.
        guard let userSchema = userSchemas[name], case .string(let hash)? = body[userSchema.passwordField] else { return }
        guard passwordHasher.isHash(hash) else { throw .unhashedPassword(field: userSchema.passwordField) }
    }

    // MARK: - Before the transaction

    /// The body of `PUT` on a user, ready to write. The private key changes the password (hashed
    /// here, before the transaction); anyone else is refused (`passwordChangeNeedsReset`), except
    /// the user re-sending its current password with other changes, as a client saving the whole
    /// object may: then the password is left out. Only the signed-in user itself is told whether
    /// the password it sent is the current one: no one else gets to test passwords this way.
    private func preparingPasswordChange(in body: JSONObject, schema name: String, id: String, caller: Caller) async throws -> JSONObject {
        guard let userSchema = userSchemas[name], let sent = body[userSchema.passwordField] else { return body }
        if caller.isPrivateKey { return try await hashingPasswords(in: body, schema: name) }
        guard case .string(let password) = sent, let session = caller.sessionUser, session.schema == name, session.id == id,
            let schema = registry.definition(named: name),
            let stored = try await storage.readByKey({ reader in try await reader.fetchObject(schema, id: id) })?[userSchema.passwordField]?.stringValue,
            await passwordHasher.verify(password, against: stored)
        else { throw DatastoreError.passwordChangeNeedsReset(field: userSchema.passwordField) }
        var unchanged = body
        unchanged[userSchema.passwordField] = nil
        return unchanged
    }

    /// The elements of a bulk body, each with its id and its body ready to write (passwords
    /// hashed); a nil body marks an element that cannot be created: listed in `failed`, with a
    /// generated id when it had none (D4).
    ///
    /// - Throws: `tooManyPasswords` past `maxPasswordsPerRequest`, before anything is hashed;
    ///   `cancelled` when the request is cancelled between two hashes.
    func preparedElements(_ elements: [JSONValue], for schema: String) async throws(DatastoreError) -> [(id: String, body: JSONObject?)] {
        if let userSchema = userSchemas[schema] {
            let passwords = elements.count(where: { $0.objectValue?[userSchema.passwordField]?.stringValue != nil })
            guard passwords <= Self.maxPasswordsPerRequest else { throw .tooManyPasswords(limit: Self.maxPasswordsPerRequest) }
        }
        var prepared: [(id: String, body: JSONObject?)] = []
        prepared.reserveCapacity(elements.count)
        for element in elements {
            guard let object = element.objectValue else {
                prepared.append((ObjectID.generate(), nil))
                continue
            }
            let hashed: JSONObject?
            do {
                hashed = try await hashingPasswords(in: object, schema: schema)
            } catch .cancelled {
                throw .cancelled
            } catch {
                hashed = nil
            }
            guard let body = hashed, let id = try? primaryKeyValue(in: body, schema: schema) else {
                prepared.append((object[primaryKeyName(for: schema)]?.stringValue ?? ObjectID.generate(), nil))
                continue
            }
            prepared.append((id, body))
        }
        return prepared
    }

    func primaryKeyName(for schemaName: String) -> String {
        registry.definition(named: schemaName)?.primaryKey ?? userSchemas[schemaName]?.loginField ?? "\(schemaName)_id"
    }

    /// The primary key a create body carries, or a generated one. User schemas require it: it is
    /// the login name.
    func primaryKeyValue(in body: JSONObject, schema name: String) throws(DatastoreError) -> String {
        let field = primaryKeyName(for: name)
        switch body[field] {
        case .string(let id) where !id.isEmpty:
            guard !FieldValueRules.containsNUL(id) else { throw .containsNUL(field: field) }
            return id
        case nil, .null?:
            guard userSchemas[name] == nil else { throw .missingPrimaryKey(field: field) }
            return ObjectID.generate()
        default:
            throw .invalidPrimaryKey(field: field)
        }
    }

    /// The most passwords one request may have hashed: each takes tens of milliseconds of CPU on
    /// purpose, so a bulk sign-up of hundreds in a few kilobytes would be minutes of CPU for free.
    public static let maxPasswordsPerRequest = 20

    /// Replaces a plaintext password with its hash. Done before the write transaction: hashing is
    /// deliberately slow and must not hold the database's single writer. A password holding
    /// U+0000 is refused as any other string would be (`ObjectWritePlanner`, which sees only the
    /// hash): the rule is the same for every string a client writes.
    func hashingPasswords(in body: JSONObject, schema name: String) async throws(DatastoreError) -> JSONObject {
        guard let userSchema = userSchemas[name], case .string(let password)? = body[userSchema.passwordField] else { return body }
        guard !FieldValueRules.containsNUL(password) else { throw .containsNUL(field: userSchema.passwordField) }
        var hashed = body
        do {
            hashed[userSchema.passwordField] = .string(try await passwordHasher.hash(password))
        } catch {
            throw .cancelled
        }
        return hashed
    }
}
