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
    /// How this engine copies its database while serving, if it can: the server's backups
    /// (`backups.*`, `stackmob-server backup`, the copy before `deploy --drop`) use it. Nil for an
    /// engine whose operators back it up with its own tools (PostgreSQL: pg_dump, point-in-time
    /// recovery; docs/operations.md). Every engine states it: no default.
    var backup: (any StorageBackup)? { get }
    /// How many bytes the database takes on disk, for the console's overview
    /// (docs/operations.md, "Web console"): SQLite's file and its write-ahead log; PostgreSQL's
    /// tables, indexes and TOAST in the environment's schema. Nil when the engine cannot tell.
    /// Every engine states it: no default. Reading it must not block the caller's thread (an
    /// event loop, docs/architecture.md, "The event-loop rule").
    func databaseSize() async throws -> Int64?
    /// Whether other processes change the same database (several instances on PostgreSQL), so
    /// that each request first takes in their schema changes (`refreshSchemas`).
    var isShared: Bool { get }
    /// Brings the `SchemaRegistry` up to date with schema changes other processes made to the
    /// same database. Called before each datastore operation when the engine `isShared`.
    /// Nil when nothing changed; else the schema settings as they now stand, whose permissions
    /// the caller applies.
    func refreshSchemas() async throws -> StoredSchemaSettings?
    /// False when the engine knows that no schema changed since its last `refreshSchemas` began
    /// (PostgreSQL: a notification channel that is up and quiet), so that a request may skip the
    /// check; true when only the database can say.
    var mayHaveSchemaChanges: Bool { get }
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
    public var mayHaveSchemaChanges: Bool { true }
}
