/// The `aclrole` schema and the roles seeded from configuration (PROTOCOL §12.3, D14).
extension Datastore {
    /// Creates `aclrole` (primary key `aclrole_id`, one-to-many `users` to the default user schema)
    /// and adds the configured members to their roles, each once (`recordConfiguredGrant`): a
    /// member is granted to whoever holds or first registers the login, and no longer once that
    /// account is deleted (deleting a user removes it from its roles) or once the member is
    /// removed through the API. Idempotent: members added at run time with the private key are
    /// kept; a member removed from the configuration stays in the stored role until removed
    /// through the API.
    static func ensureRoles(
        _ roles: [String: [String]], userSchema: String, storage: any StorageEngine, registry: SchemaRegistry, now: Int64
    ) async throws {
        let wanted = RoleSchema.definition(userSchema: userSchema)
        try await storage.write { writer in
            var schema = registry.definition(named: RoleSchema.name)
            switch schema?.type(of: RoleSchema.membersField) {
            case nil:
                try await writer.evolveSchema(from: schema, to: schema?.adding(wanted.fields) ?? wanted)
                schema = schema?.adding(wanted.fields) ?? wanted
            case .relation(userSchema, toMany: true)?, .array(.string)?:
                break
            case let other?:
                throw DatastoreSetupError.relationshipConflict(
                    schema: RoleSchema.name, reason: "its field '\(RoleSchema.membersField)' holds \(other.name) values, not the role's users")
            }
            guard let schema, schema.primaryKey == RoleSchema.primaryKey else {
                throw DatastoreSetupError.relationshipConflict(schema: RoleSchema.name, reason: "its primary key must be '\(RoleSchema.primaryKey)'")
            }
            for (role, configured) in roles.sorted(by: { $0.key < $1.key }) {
                var members: [String] = []
                for member in configured {
                    if try await writer.recordConfiguredGrant(role: role, member: member, at: now) { members.append(member) }
                }
                guard !members.isEmpty else { continue }
                if let existing = try await writer.fetchObject(schema, id: role) {
                    let current = RelationLoader.ids(in: existing[RoleSchema.membersField])
                    let missing = members.filter { !current.contains($0) }
                    guard !missing.isEmpty else { continue }
                    let previous = existing[SchemaDefinition.lastModifiedDate]?.integerValue ?? 0
                    try await writer.update(schema, id: role, changes: [
                        RoleSchema.membersField: .array((current + missing).map(JSONValue.string)),
                        SchemaDefinition.lastModifiedDate: .integer(ObjectTimestamps.nextModification(after: previous, now: now)),
                    ])
                } else {
                    try await writer.insert([
                        RoleSchema.primaryKey: .string(role), RoleSchema.membersField: .array(members.map(JSONValue.string)),
                        SchemaDefinition.createdDate: .integer(now), SchemaDefinition.lastModifiedDate: .integer(now),
                    ], into: schema)
                }
            }
        }
    }
}
