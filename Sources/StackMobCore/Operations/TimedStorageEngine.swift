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

    public func read<T: Sendable>(_ work: @escaping @Sendable (any StorageReader) async throws -> T) async throws -> T {
        try await timed(.read) { try await base.read(work) }
    }

    public func readByKey<T: Sendable>(_ work: @escaping @Sendable (any StorageReader) async throws -> T) async throws -> T {
        try await timed(.read) { try await base.readByKey(work) }
    }

    public func readOneStatement<T: Sendable>(_ work: @escaping @Sendable (any StorageReader) async throws -> T) async throws -> T {
        try await timed(.read) { try await base.readOneStatement(work) }
    }

    public func write<T: Sendable>(_ work: @escaping @Sendable (any StorageWriter) async throws -> T) async throws -> T {
        try await timed(.write) { try await base.write(work) }
    }

    private func timed<T>(_ operation: Operation, _ body: () async throws -> T) async throws -> T {
        let start = ContinuousClock.now
        defer { record(operation, ContinuousClock.now - start) }
        return try await body()
    }

    public func loadSchemaDefinitions() async throws -> [SchemaDefinition] { try await base.loadSchemaDefinitions() }
    public func loadSchemaSettings() async throws -> StoredSchemaSettings { try await base.loadSchemaSettings() }
    public var isShared: Bool { base.isShared }
    public var backup: (any StorageBackup)? { base.backup }
    public func databaseSize() async throws -> Int64? { try await base.databaseSize() }
    public func refreshSchemas() async throws -> StoredSchemaSettings? { try await base.refreshSchemas() }
    public var mayHaveSchemaChanges: Bool { base.mayHaveSchemaChanges }
    public func close() async throws { try await base.close() }
}

extension Datastore {
    /// How the engine under this datastore copies its database while serving, if it can.
    public var backupEngine: (any StorageBackup)? { storage.backup }
}
