/// What one transaction can change: a `StorageEngine.write`'s view, which can read too.
public protocol StorageWriter: StorageReader {
    /// Creates the schema's table (when `previous` is nil) or adds the new fields' columns, records
    /// the definition, and publishes it to the registry once the transaction commits.
    func evolveSchema(from previous: SchemaDefinition?, to next: SchemaDefinition) async throws
    /// Inserts a new object. Throws `StorageError.duplicateKey` if the primary key exists.
    func insert(_ object: JSONObject, into schema: SchemaDefinition) async throws
    /// Sets the given fields of an existing object; a `.null` value clears the field.
    func update(_ schema: SchemaDefinition, id: String, changes: JSONObject) async throws
    /// Deletes an object; false when there was none.
    func delete(_ schema: SchemaDefinition, id: String) async throws -> Bool
    /// Deletes every object the filter matches. With `returning`, answers each deleted object's
    /// primary key and those fields (what must be cleaned up after the commit: files, tokens);
    /// with nil, nothing.
    func deleteObjects(_ schema: SchemaDefinition, matching filter: TypedFilter, returning: [String]?) async throws -> [JSONObject]
    /// Removes the push tokens linked to a user id (the user object is being deleted, §11.1).
    func deletePushTokens(linkedTo userID: String) async throws
    /// Removes the social accounts linked to a user (the user object is being deleted, §9).
    func deleteSocialLinks(userSchema: String, userID: String) async throws
    /// Removes a user's login sessions and refresh tokens, legacy cookie sessions and temporary
    /// password (the user object is being deleted): whoever registers the login next must find
    /// nothing of its predecessor's that still signs in.
    func deleteCredentials(userSchema: String, userID: String) async throws
    /// Records that the configuration's `roles` granted `member` its role (table of migration
    /// v009); false when that was recorded before. A configured member is granted once, so a
    /// later account registering a deleted member's login is not granted the role at a restart.
    func recordConfiguredGrant(role: String, member: String, at time: Int64) async throws -> Bool
    /// Forgets every recorded configured grant (a CI-mode reset, which replaces the roles too).
    func forgetConfiguredGrants() async throws
    /// Records an index and creates it now if its fields exist, else when they first do.
    func declareIndex(schema: String, fields: [String]) async throws
    /// Drops a field's column with its indexes (`deploy --drop`); returns the definition without it.
    func dropField(_ schema: SchemaDefinition, field: String) async throws -> SchemaDefinition
    /// Drops a schema's table and everything recorded about it (`deploy --drop`).
    func dropSchema(_ schema: SchemaDefinition) async throws
    /// Records a schema's permissions (a deploy, the admin API); `onCommit` runs once they are
    /// committed, to publish them.
    func recordPermissions(schema: String, _ permissions: SchemaPermissions, onCommit: @escaping @Sendable () -> Void) async throws
}
