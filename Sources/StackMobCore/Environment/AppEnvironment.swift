/// One environment of the app at run time: its keys, its settings and its datastore.
public struct AppEnvironment: Sendable {
    public let kind: EnvironmentKind
    /// The key pair in force: the admin API can rotate it without a restart (issue 15).
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
