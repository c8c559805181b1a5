/// One environment of the app at run time: its keys, its settings and its datastore.
public struct AppEnvironment: Sendable {
    public let kind: EnvironmentKind
    public let keys: AppKeys
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
        self.keys = keys
        self.settings = settings
        self.datastore = datastore
    }
}
