/// Opens the databases of the environments: what a storage engine module gives the domain.
///
/// The one place that knows which engine serves is the composition root (`StackMobApp`'s
/// `StorageSelection`, for `serve` and the other commands), which picks a provider from the
/// configuration's `storage` section.
public protocol StorageProvider: Sendable {
    /// Opens one environment's storage, creating and migrating its database as needed.
    /// `indexes` are the configured indexes by schema.
    func open(_ environment: EnvironmentKind, registry: SchemaRegistry, indexes: [String: [[String]]]) async throws -> EnvironmentStorage
    /// Where an environment's data lives, for logs and messages (a path, or a URL without its
    /// password).
    func location(of environment: EnvironmentKind) -> String
}

/// Everything one environment keeps, each behind the domain's own protocol.
public struct EnvironmentStorage: Sendable {
    public let engine: any StorageEngine
    public let tokens: any TokenStore
    public let push: any PushStore
    public let operators: any OperatorStorage
    /// The MAC nonces already seen: in memory for an engine served by one process, in the
    /// database for one shared by several instances (a replay through another is refused).
    public let nonces: any NonceStore
    /// A signed request's session and its nonce in one round trip, where the engine keeps both in
    /// one database across the network; nil where a lookup and then a record cost nothing more.
    public let signedSessions: (any SignedSessionStore)?

    public init(
        engine: any StorageEngine, tokens: any TokenStore, push: any PushStore, operators: any OperatorStorage,
        nonces: any NonceStore, signedSessions: (any SignedSessionStore)? = nil
    ) {
        self.engine = engine
        self.tokens = tokens
        self.push = push
        self.operators = operators
        self.nonces = nonces
        self.signedSessions = signedSessions
    }
}
