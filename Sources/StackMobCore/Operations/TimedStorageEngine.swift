/// A storage engine that reports how long each read and write transaction took (the database
/// time of `/metrics`), and otherwise forwards everything to the engine it wraps.
public struct TimedStorageEngine: StorageEngine {
    public enum Operation: String, Sendable {
        case read, write
    }

    public let base: any StorageEngine
    private let record: @Sendable (Operation, Duration) -> Void

    public init(base: any StorageEngine, record: @escaping @Sendable (Operation, Duration) -> Void) {
        self.base = base
        self.record = record
    }

    public func read<T: Sendable>(_ work: @escaping @Sendable (any StorageReader) throws -> T) async throws -> T {
        let start = ContinuousClock.now
        defer { record(.read, ContinuousClock.now - start) }
        return try await base.read(work)
    }

    public func write<T: Sendable>(_ work: @escaping @Sendable (any StorageWriter) throws -> T) async throws -> T {
        let start = ContinuousClock.now
        defer { record(.write, ContinuousClock.now - start) }
        return try await base.write(work)
    }

    public func loadSchemaDefinitions() async throws -> [SchemaDefinition] { try await base.loadSchemaDefinitions() }
    public func loadSchemaSettings() async throws -> StoredSchemaSettings { try await base.loadSchemaSettings() }
    public func close() throws { try base.close() }
}

extension Datastore {
    /// The SQLite engine under this datastore, through a `TimedStorageEngine` if there is one.
    var sqliteEngine: SQLiteStorageEngine? {
        (storage as? SQLiteStorageEngine) ?? ((storage as? TimedStorageEngine)?.base as? SQLiteStorageEngine)
    }
}
