import Synchronization

/// The committed schema definitions of one environment, cached in memory.
///
/// Every request needs its schema's definition, so it is not read from SQLite each time. The cache
/// only ever holds committed state: the storage engine publishes a changed definition after its
/// transaction commits, and because writes are serialised, the next write transaction always sees
/// every definition committed before it.
public final class SchemaRegistry: Sendable {
    private let schemas: Mutex<[String: SchemaDefinition]>

    public init(_ definitions: [SchemaDefinition] = []) {
        schemas = Mutex(Dictionary(definitions.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last }))
    }

    public func definition(named name: String) -> SchemaDefinition? {
        schemas.withLock { $0[name] }
    }

    public func all() -> [SchemaDefinition] {
        schemas.withLock { Array($0.values) }.sorted { $0.name < $1.name }
    }

    /// Forgets a dropped schema. Called by the storage engine after commit.
    public func remove(_ name: String) {
        schemas.withLock { $0[name] = nil }
    }

    /// Publishes a committed definition. Called by the storage engine after commit.
    public func publish(_ definition: SchemaDefinition) {
        schemas.withLock { $0[definition.name] = definition }
    }
}
