/// Export and import (docs/operations.md, "Export and import"): every stored object exactly as
/// stored (ids, dates, owners, relations, password hashes), read in one snapshot and written in one
/// transaction.
extension Datastore {
    /// Every schema's objects, by primary key, from one consistent snapshot.
    public func exportObjects() async throws -> [(schema: String, objects: [JSONObject])] {
        let schemas = registry.all().sorted { $0.name < $1.name }
        return try await storage.read { reader in
            var exported: [(schema: String, objects: [JSONObject])] = []
            for schema in schemas {
                let page = try await reader.fetchObjects(schema, query: ObjectQuery(order: [SortKey(field: schema.primaryKey, ascending: true)]))
                exported.append((schema.name, page.objects))
            }
            return exported
        }
    }

    /// The fields an imported object of `schema` may carry, with their types: the declaration's,
    /// the primary key, the system fields and a user schema's password hash.
    public func importableFields(of declaration: SchemaDeclaration) -> [String: FieldType] {
        var fields = declaration.fields
        let primaryKey = declaration.primaryKey ?? userSchemas[declaration.name]?.loginField ?? "\(declaration.name)_id"
        fields[primaryKey] = .string
        fields[SchemaDefinition.createdDate] = .integer
        fields[SchemaDefinition.lastModifiedDate] = .integer
        fields[SchemaDefinition.owner] = .string
        if let userSchema = userSchemas[declaration.name] { fields[userSchema.passwordField] = .password }
        return fields
    }

    /// Writes checked objects as they are, in one transaction: new ones are inserted, changed
    /// ones replaced, equal ones left alone (a second import changes nothing). `progress` is
    /// called with the number of objects handled so far.
    public func importObjects(
        _ batches: [(schema: String, objects: [JSONObject])], progress: @escaping @Sendable (Int) -> Void
    ) async throws -> ImportCounts {
        let registry = self.registry
        let userSchemas = self.userSchemas
        return try await storage.write { writer in
            var counts = ImportCounts()
            for (name, objects) in batches {
                guard let schema = registry.definition(named: name) else { throw DatastoreError.unknownSchema(name) }
                for var object in objects {
                    guard let id = object[schema.primaryKey]?.stringValue else { throw DatastoreError.missingPrimaryKey(field: schema.primaryKey) }
                    // An export from before user objects owned themselves.
                    if userSchemas[name] != nil, object[SchemaDefinition.owner] == nil {
                        object[SchemaDefinition.owner] = .string(Self.ownerReference(userSchema: name, id: id))
                    }
                    if let existing = try await writer.fetchObject(schema, id: id) {
                        if existing == object {
                            counts.unchanged += 1
                        } else {
                            var changes = object
                            for field in existing.keys where object[field] == nil { changes[field] = .null }
                            changes[schema.primaryKey] = nil
                            try await writer.update(schema, id: id, changes: changes)
                            if let userSchema = userSchemas[name] {
                                try await Self.revokeReplacedUser(existing, by: object, id: id, userSchema: userSchema, writer: writer)
                            }
                            counts.replaced += 1
                        }
                    } else {
                        try await writer.insert(object, into: schema)
                        counts.inserted += 1
                    }
                    let done = counts.total
                    if done % 500 == 0 { progress(done) }
                }
            }
            progress(counts.total)
            return counts
        }
    }

    /// A user object an import replaces: another account (another `createddate`) under the same
    /// login inherits nothing of the stored one's, as after a delete; the same account with
    /// another password hash keeps its links but loses its sessions, as after a password change.
    private static func revokeReplacedUser(
        _ stored: JSONObject, by imported: JSONObject, id: String, userSchema: UserSchema, writer: any StorageWriter
    ) async throws {
        let created = SchemaDefinition.createdDate
        if stored[created] != imported[created] {
            try await forgetSignIns(of: id, userSchema: userSchema.name, writer: writer)
        } else if stored[userSchema.passwordField] != imported[userSchema.passwordField] {
            try await writer.deleteCredentials(userSchema: userSchema.name, userID: id)
        }
    }
}

/// What an import did to the objects.
public struct ImportCounts: Sendable, Equatable {
    public var inserted = 0
    public var replaced = 0
    public var unchanged = 0
    public var total: Int { inserted + replaced + unchanged }

    public init() {}
}
