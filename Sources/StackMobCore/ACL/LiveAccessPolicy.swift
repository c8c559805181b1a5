import Synchronization

/// An environment's permissions while it serves: set from the configuration and what deploys
/// recorded at start-up, then changed by a deploy or the admin API without a restart
/// (docs/operations.md, "Admin API").
public final class LiveAccessPolicy: Sendable {
    private let policy: Mutex<AccessPolicy>
    /// Schemas whose permissions the configuration sets: they win over recorded ones, at every
    /// start, so a running change to them is refused rather than silently undone later.
    public let configuredSchemas: Set<String>

    public init(_ policy: AccessPolicy, configuredSchemas: Set<String> = []) {
        self.policy = Mutex(policy)
        self.configuredSchemas = configuredSchemas
    }

    public var current: AccessPolicy { policy.withLock { $0 } }

    /// Publishes recorded permissions; called after the recording transaction committed.
    func set(_ permissions: SchemaPermissions, for schema: String) {
        policy.withLock { $0.schemas[schema] = permissions }
    }
}
