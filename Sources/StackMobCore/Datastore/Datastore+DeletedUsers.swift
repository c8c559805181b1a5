/// What a deleted user leaves behind: nothing a later account with the same login could use.
/// A login is the user's only identity on the wire (`sm_owner` is `<userSchema>/<login>`, and
/// roles and relationships name users by login), and the SDK suites delete and re-register
/// users, so a login may be taken again; what named the old account is removed with it instead.
extension Datastore {
    /// Removes, in the delete's transaction, whichever way the user was deleted: its devices
    /// stop receiving its notifications (PROTOCOL §11.1), its social accounts are free to link
    /// to another user (§9), its sessions, refresh tokens, cookie sessions and temporary
    /// password stop working, and every object stops naming it (`releaseReferences`).
    func forgetUser(_ id: String, userSchema: String, now: Int64, writer: any StorageWriter) async throws {
        try await Self.forgetSignIns(of: id, userSchema: userSchema, writer: writer)
        try await releaseReferences(to: id, userSchema: userSchema, now: now, writer: writer)
    }

    /// Everything that signs in or is reached as the account: its push tokens, social links,
    /// sessions, refresh tokens, cookie sessions and temporary password. Also what a CI-mode
    /// reset and an import that replaces the account with another remove.
    static func forgetSignIns(of id: String, userSchema: String, writer: any StorageWriter) async throws {
        try await writer.deletePushTokens(linkedTo: id)
        try await writer.deleteSocialLinks(userSchema: userSchema, userID: id)
        try await writer.deleteCredentials(userSchema: userSchema, userID: id)
    }

    /// The objects the user owned keep their data but lose their owner (`sm_owner` cleared: only
    /// permissions that do not depend on the owner, the private key and the admin API reach them
    /// then), and the relationships naming the user, role memberships in `aclrole` among them,
    /// drop its id. Each changed object gets a new `lastmoddate`, so that syncing clients see it.
    private func releaseReferences(to id: String, userSchema: String, now: Int64, writer: any StorageWriter) async throws {
        for schema in registry.all() {
            try await update(schema, matching: .ownerIs("\(userSchema)/\(id)"), writer: writer, now: now) { _ in
                [SchemaDefinition.owner: .null]
            }
            for (field, type) in schema.fields.sorted(by: { $0.key < $1.key }) {
                let toMany: Bool
                switch type {
                case .relation(userSchema, let many): toMany = many
                // Members of a role seeded before relationships were declared.
                case .array(.string) where schema.name == RoleSchema.name && field == RoleSchema.membersField: toMany = true
                default: continue
                }
                try await update(schema, matching: .relationContains(field: field, toMany: toMany, id: id), writer: writer, now: now) { object in
                    guard toMany else { return [field: .null] }
                    return [field: .array(RelationLoader.ids(in: object[field]).filter { $0 != id }.map(JSONValue.string))]
                }
            }
        }
    }

    /// Applies `change` to every object `rows` admits, a batch at a time: a changed object no
    /// longer matches, so each batch is the next one.
    private func update(
        _ schema: SchemaDefinition, matching rows: RowFilter, writer: any StorageWriter, now: Int64,
        change: (JSONObject) -> JSONObject
    ) async throws {
        var changed: Set<String> = []
        while true {
            let batch = try await writer.fetchObjects(schema, query: ObjectQuery(filter: .access(rows), limit: 500)).objects
            var progressed = false
            for object in batch {
                guard let key = object[schema.primaryKey]?.stringValue, changed.insert(key).inserted else { continue }
                var changes = change(object)
                let previous = object[SchemaDefinition.lastModifiedDate]?.integerValue ?? 0
                changes[SchemaDefinition.lastModifiedDate] = .integer(ObjectTimestamps.nextModification(after: previous, now: now))
                try await writer.update(schema, id: key, changes: changes)
                progressed = true
            }
            // A batch of objects already changed means the filter still admits them: stop
            // rather than loop (it cannot happen while `change` removes what `rows` matches).
            guard progressed, batch.count == 500 else { return }
        }
    }
}
