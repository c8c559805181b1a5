/// One environment of the app at run time: its keys, its settings and its datastore.
///
/// A class, though nothing in it changes: every request's context holds its environment, and a
/// struct of this size (the settings, and the datastore, twice over through `users`) was many
/// reference counts to take and drop at each copy of the context (docs/benchmarks.md, "Figures
/// behind design choices").
public final class AppEnvironment: Sendable {
    public let kind: EnvironmentKind
    /// The key pair in force: the admin API can rotate it without a restart (docs/operations.md,
    /// "Admin API").
    public var keys: AppKeys { liveKeys.current }
    public let liveKeys: LiveKeys
    public let settings: EnvironmentSettings
    public let datastore: Datastore
    /// Logins, sessions and password flows.
    public let users: UserAccounts
    /// Push tokens, notifications and their outbox (PROTOCOL §11).
    public let push: TokenRegistry

    public init(kind: EnvironmentKind, keys: AppKeys, settings: EnvironmentSettings, datastore: Datastore, users: UserAccounts, push: TokenRegistry) {
        self.push = push
        self.users = users
        self.kind = kind
        self.liveKeys = LiveKeys(keys)
        self.settings = settings
        self.datastore = datastore
    }
}
