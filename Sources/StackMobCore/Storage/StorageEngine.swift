/// The datastore's only way to reach persistent storage.
///
/// Kept small on purpose, so that each engine (SQLite, PostgreSQL) lives in its own module and the
/// domain imports no database driver. A `read` sees one consistent snapshot; a `write` is one
/// transaction: everything its closure does commits together or not at all. The closures are
/// async because a network database answers asynchronously; they must not keep the transaction
/// waiting on anything but the storage itself (no HTTP calls, no sleeps), since an engine may
/// hold a connection or a thread for the whole closure.
public protocol StorageEngine: Sendable {
    func read<T: Sendable>(_ work: @escaping @Sendable (any StorageReader) async throws -> T) async throws -> T
    func write<T: Sendable>(_ work: @escaping @Sendable (any StorageWriter) async throws -> T) async throws -> T
    /// A `read` of a few rows by primary key (an object by id, and the objects its expansion
    /// names): the same snapshot, but an engine may run it on the calling thread when a
    /// connection is free at once, stopping and moving it to a thread of its own if it runs long
    /// (a deep expansion). Such a read takes microseconds, less than the thread hops to a
    /// connection's thread and back; a query, whose time depends on the data, goes to `read`.
    /// An engine may also run it as `readOneStatement` does, so its body may run twice.
    func readByKey<T: Sendable>(_ work: @escaping @Sendable (any StorageReader) async throws -> T) async throws -> T
    /// A `read` that usually runs a single statement (a page without expansion): the same
    /// snapshot, but an engine whose statements each cost a round trip (PostgreSQL) may start it
    /// without a transaction, and run it again in one when it asks for a second statement. So
    /// its body may run twice: it must only read, and keep nothing from a first run.
    func readOneStatement<T: Sendable>(_ work: @escaping @Sendable (any StorageReader) async throws -> T) async throws -> T
    /// The persisted schema definitions, read once at start-up to fill the `SchemaRegistry`.
    func loadSchemaDefinitions() async throws -> [SchemaDefinition]
    /// Permissions and indexes recorded by deploys and the admin API, with the indexes that exist.
    func loadSchemaSettings() async throws -> StoredSchemaSettings
    /// Releases the database (files, connections) at shutdown; later calls fail.
    func close() async throws
    /// Whether other processes change the same database (several instances on PostgreSQL), so
    /// that each request first takes in their schema changes (`refreshSchemas`).
    var isShared: Bool { get }
    /// Brings the `SchemaRegistry` up to date with schema changes other processes made to the
    /// same database. Called before each datastore operation when the engine `isShared`.
    /// Nil when nothing changed; else the schema settings as they now stand, whose permissions
    /// the caller applies.
    func refreshSchemas() async throws -> StoredSchemaSettings?
}

extension StorageEngine {
    public func readByKey<T: Sendable>(_ work: @escaping @Sendable (any StorageReader) async throws -> T) async throws -> T {
        try await read(work)
    }

    public func readOneStatement<T: Sendable>(_ work: @escaping @Sendable (any StorageReader) async throws -> T) async throws -> T {
        try await read(work)
    }

    /// An engine served by one process only (SQLite) sees every change as it commits.
    public var isShared: Bool { false }
    public func refreshSchemas() async throws -> StoredSchemaSettings? { nil }
}

public protocol StorageReader {
    /// The stored object with every non-null column, password hashes included.
    func fetchObject(_ schema: SchemaDefinition, id: String) async throws -> JSONObject?
    /// The matching objects in the query's order and window, compiled into one SQL statement.
    func fetchObjects(_ schema: SchemaDefinition, query: ObjectQuery) async throws -> ObjectPage
    /// The primary keys of the objects `fetchObjects(_:query:)` would return, in its order (the
    /// query's total and a `near` condition's distance aside): how a long answer is read in
    /// batches without holding its objects (`Datastore.queryInBatches`).
    func fetchPrimaryKeys(_ schema: SchemaDefinition, query: ObjectQuery) async throws -> [String]
    /// The stored objects among `ids` (distinct), in no particular order, in ONE statement
    /// whatever the number of ids (how expansion loads a level, PROTOCOL §5.5). With `rows`, only
    /// the objects it admits (schema permissions, §12), in the same statement.
    func fetchObjects(_ schema: SchemaDefinition, ids: [String], admitting rows: RowFilter?) async throws -> [JSONObject]
}

extension StorageReader {
    public func fetchObjects(_ schema: SchemaDefinition, ids: [String]) async throws -> [JSONObject] {
        try await fetchObjects(schema, ids: ids, admitting: nil)
    }
}

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

/// What `_sm_schema_settings` and the database's indexes hold (docs/operations.md, "From
/// development to production").
public struct StoredSchemaSettings: Sendable, Equatable {
    public var permissions: [String: SchemaPermissions] = [:]
    /// Declared or existing indexes, by schema (the ones every table has left out).
    public var indexes: [String: [[String]]] = [:]

    public init(permissions: [String: SchemaPermissions] = [:], indexes: [String: [[String]]] = [:]) {
        self.permissions = permissions
        self.indexes = indexes
    }
}

/// Failures the storage boundary translates for the domain.
public enum StorageError: Error, Sendable, Equatable {
    case duplicateKey
}
