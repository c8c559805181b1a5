/// Everything the server can be configured with. Every key, its type and default is documented in
/// `config/README.md`; `config/stackmob.example.json` holds them all.
public struct StackMobConfiguration: Sendable, Equatable {
    public var appName = "stackmob-app"
    public var host = "127.0.0.1"
    public var port = 8080
    /// Where the SQLite files and generated keys live. Relative paths are relative to the
    /// working directory.
    public var dataDirectory = "./stackmob-data"
    public var logLevel = LogLevel.info
    /// Largest request body accepted, in bytes.
    public var maxBodyBytes = 10 * 1024 * 1024
    /// Request bodies one client's requests hold in memory at once, in bytes; past it a request
    /// with a large body is refused (503) until others end. Unset: 64 MiB, or `maxBodyBytes`
    /// when that is larger, so that raising the body limit alone keeps a working configuration.
    public var maxBodyBytesPerClient: Int {
        get { configuredBodyBytesPerClient ?? max(64 * 1024 * 1024, maxBodyBytes) }
        set { configuredBodyBytesPerClient = newValue }
    }
    /// Request bodies all requests of a listener hold in memory at once, in bytes. Unset:
    /// 256 MiB, or `maxBodyBytesPerClient` when that is larger.
    public var maxBodyBytesInFlight: Int {
        get { configuredBodyBytesInFlight ?? max(256 * 1024 * 1024, maxBodyBytesPerClient) }
        set { configuredBodyBytesInFlight = newValue }
    }
    /// The two budgets as configured; nil where they follow `maxBodyBytes`.
    private var configuredBodyBytesPerClient: Int?
    private var configuredBodyBytesInFlight: Int?
    /// Largest answer with expanded relations, in bytes: an expansion repeats each related
    /// object in every object naming it, so its size is the request's choice, not the data's.
    public var maxExpandedResponseBytes = 32 * 1024 * 1024
    /// A connection that sends nothing for this long is closed, so idle or stalled clients cannot
    /// hold connections open forever.
    public var idleTimeoutSeconds = 60
    /// How long a request's head may take to arrive, from its first byte (slow clients).
    public var headerTimeoutSeconds = 30
    /// How long a request's body may take to arrive, from its headers on (slow clients).
    public var bodyTimeoutSeconds = 30
    /// The longest the server works on one request before answering 504; above every custom
    /// code timeout.
    public var requestTimeoutSeconds = 60
    /// Connections one listener holds open at most; more are closed when accepted.
    public var maxConnections = 10_000
    /// Connections one listener holds open from one client address at most (trusted proxies
    /// exempt), so that one client cannot take every slot of `maxConnections`.
    public var maxConnectionsPerClient = 256
    /// How long a new connection may take to send its first complete request head: a client
    /// that connects and says nothing holds its slot for seconds, not the idle timeout.
    public var newConnectionTimeoutSeconds = 10
    /// Failed attempts at secrets allowed per client address and per account (429 beyond).
    public var failureLimits = FailureLimits()
    /// The database engine and its settings (`storage`).
    public var storage = StorageSettings()
    /// SQLite's `storage.synchronous`.
    public var durability: StorageSettings.Durability {
        get { storage.durability }
        set { storage.durability = newValue }
    }
    public var passwordRounds = PasswordHasher.defaultRounds
    /// Binary fields (PROTOCOL §7): where files are stored and served.
    public var files = FileSettings()
    /// How long the server waits for a custom-code webhook before answering 504.
    public var customCodeTimeoutSeconds = 25
    public var development = EnvironmentSettings(schemaInference: true, corsAllowedOrigins: ["*"])
    public var production = EnvironmentSettings(schemaInference: false)
    /// Outgoing mail: SMTP when `mail.smtp.host` is set, else the outbox.
    public var mail = MailSettings()
    /// The push host's listener and the delivery service (PROTOCOL §11).
    public var push = PushServerSettings()
    /// Each environment's HTML5 app: its listener and kept versions.
    public var html5 = HTML5Settings()
    /// A fixture file loaded at start-up and by a reset (`fixtures`, `serve --fixtures`).
    public var fixturesFile: String?
    /// Scheduled online backups (`backups.*`); off by default.
    public var backups = BackupSettings()
    /// `/metrics`, `/health` and `/ready`: where they listen and who may read them.
    public var monitoring = MonitoringSettings()
    /// `logging.format`: plain text lines (default) or one JSON object per line.
    public var logFormat = LogFormat.text
    /// The admin API and console: their listener, and what `reset` may touch (`admin.*`).
    public var admin = AdminSettings()
    /// The peers whose forwarding headers name the client (`listen.trusted_proxies`).
    public var trustedProxies = TrustedProxies.loopback
    /// Which HTTP/1.1 connection layer every listener runs (`listen.http1_channel`).
    public var http1Channel = HTTP1ChannelKind.native
    /// Set by `serve --ephemeral`: nothing outlives the process.
    public var ephemeral = false

    /// CI mode: a throw-away server, or one that loads a fixture at every start and reset.
    public var ciMode: Bool { ephemeral || fixturesFile != nil }

    public init() {
        // Public-key token registration could re-link any device to any user: off in production.
        production.push.publicRegistration = false
    }

    public func settings(for kind: EnvironmentKind) -> EnvironmentSettings {
        switch kind {
        case .development: development
        case .production: production
        }
    }

    public enum LogLevel: String, Sendable, CaseIterable {
        case trace, debug, info, notice, warning, error, critical
    }

    public enum LogFormat: String, Sendable, CaseIterable {
        case text, json
    }

    /// `listen.http1_channel`: the server's own connection layer, or Hummingbird's `HTTP1Channel`
    /// with the same limits and timeouts, kept one setting away so the two can be compared.
    public enum HTTP1ChannelKind: String, Sendable, CaseIterable {
        case native, hummingbird
    }
}

/// The two environments of an app (PROTOCOL §2.5): API version 0 is development, every version
/// from 1 up is production, sharing one data set.
public enum EnvironmentKind: String, Sendable, CaseIterable {
    case development, production

    public init(apiVersion: Int) {
        self = apiVersion == 0 ? .development : .production
    }
}

public struct EnvironmentSettings: Sendable, Equatable {
    /// The app's public key (`X-StackMob-API-Key`); generated and persisted when nil.
    public var publicKey: String?
    /// The private key (OAuth 1.0 secret); generated and persisted when nil. Secret.
    public var privateKey: String?
    /// Whether unknown schemas and fields are created on first write.
    public var schemaInference: Bool
    public var userSchemas: [UserSchema] = [UserSchema()]
    /// Indexes by schema, each one field or several (composite): indexes make filters and sorts
    /// fast, at some cost to every write. Created when their fields first exist.
    public var indexes: [String: [[String]]] = [:]
    /// Declared relationship fields by schema and field (`RelationshipDeclarations`).
    public var relationships: [String: [String: FieldType]] = [:]
    /// The base of this environment's file URLs, without a trailing slash:
    /// `<base>/<schema>/<id>/<field>/<filename>` (D32). Nil = the store's own location.
    public var filesBaseURL: String?
    /// Declared schemas (`schemas`, `schemas_file`): created at start-up, additively. Their
    /// indexes and permissions are also folded into `indexes` and `access`.
    public var schemas: [String: SchemaDeclaration] = [:]
    /// Lifetime of an access token (`expires_in`, PROTOCOL §8.2).
    public var accessTokenLifetimeSeconds = 3600
    /// How long a refresh token works after it was issued (at login or by the previous refresh);
    /// past that the user logs in again, and the retention sweep deletes the session.
    public var refreshTokenLifetimeDays = 30
    /// How far a MAC `ts` may be from the server's clock; 0 disables the check (D19).
    public var macTimestampWindowSeconds = 600
    /// How far an OAuth 1.0 `oauth_timestamp` may be from the server's clock; 0 disables the check.
    public var oauth1TimestampWindowSeconds = 600
    /// Whether a request signed with an expired access token acts as anonymous instead of 401 (D7).
    public var expiredTokenAsAnonymous = false
    /// Whether a login ends the user's other sessions (D24).
    public var singleSession = false
    /// Browser origins allowed to call the API (PROTOCOL §2.10); `*` allows any origin.
    public var corsAllowedOrigins: [String] = []
    /// How long a browser may cache a pre-flight answer.
    public var corsMaxAgeSeconds = 600
    /// Custom-code methods (PROTOCOL §10): each name, matched case-insensitively, forwards to a webhook.
    public var customCode: [CustomCodeMethod] = []
    /// Push senders and public-key registration (PROTOCOL §11, D12).
    public var push = PushSettings()
    /// Schema permissions and seeded roles (PROTOCOL §12); everything open by default.
    public var access = AccessPolicy()
    /// Facebook, Twitter and Gigya login (PROTOCOL §9); none configured by default.
    public var social = SocialSettings()

    public init(
        publicKey: String? = nil, privateKey: String? = nil, schemaInference: Bool, userSchemas: [UserSchema] = [UserSchema()],
        indexes: [String: [[String]]] = [:], corsAllowedOrigins: [String] = []
    ) {
        self.corsAllowedOrigins = corsAllowedOrigins
        self.publicKey = publicKey
        self.privateKey = privateKey
        self.schemaInference = schemaInference
        self.userSchemas = userSchemas
        self.indexes = indexes
    }
}
