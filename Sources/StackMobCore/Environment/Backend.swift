import Foundation
import Logging

/// Everything the server serves: both environments, opened from the configuration.
public struct Backend: Sendable {
    public let configuration: StackMobConfiguration
    public let development: AppEnvironment
    public let production: AppEnvironment
    /// The environments whose keys this start generated (and wrote to `keys.json`): the only
    /// start whose log shows a private key (docs/operations.md, "Keys").
    public let generatedKeys: [EnvironmentKind]
    /// The outgoing mail transport given at start-up (SMTP when configured); nil = each
    /// environment's outbox.
    public let mailer: (any Mailer)?
    /// Where binary fields' bytes are kept (PROTOCOL §7).
    public let files: any FileStore
    /// Failed attempts at secrets, shared by every listener (`limits.auth_failures_*`).
    public let failureLimiter: FailureLimiter
    /// Forgot-password requests, limited apart from secrets (`FailureLimits.forgotPassword`).
    public let forgotPasswordLimiter: FailureLimiter
    /// Operator accounts, sessions and the audit log of the admin API (production database).
    public let operators: OperatorStore
    /// Recent custom-code failures, shown by the admin API.
    public let customCodeFailures = CustomCodeFailureLog()

    public func environment(_ kind: EnvironmentKind) -> AppEnvironment {
        switch kind {
        case .development: development
        case .production: production
        }
    }

    /// Where the environments' data lives: the engine the configuration chose.
    public let storage: any StorageProvider
    /// What start-up warned about the setup, for the console's overview.
    public let configurationWarnings: ConfigurationWarnings

    /// Closes both environments' databases. Called once, at shutdown, after the last request.
    public func close() async throws {
        try await development.datastore.storage.close()
        try await production.datastore.storage.close()
    }

    /// Creates the data directory if needed (keys and local files live there whatever the
    /// engine), resolves the keys, opens each environment's storage (applying migrations) and
    /// loads the schema registries.
    public static func open(
        _ configuration: StackMobConfiguration, storage provider: any StorageProvider, clock: any ServerClock = SystemClock(),
        mailer: (any Mailer)? = nil, fileStore: (any FileStore)? = nil,
        instrument: @Sendable (EnvironmentKind, any StorageEngine) -> any StorageEngine = { $1 }, logger: Logger,
        warnings: ConfigurationWarnings = ConfigurationWarnings()
    ) async throws -> Backend {
        let directory = configuration.dataDirectory
        do {
            try PrivateFiles.createDirectory(atPath: directory)
        } catch {
            throw ConfigurationError(key: "data_dir", "cannot create '\(directory)': \(error.localizedDescription)")
        }
        // An existing directory is left as the operator made it (a volume may be shared on
        // purpose); what the server writes in it is its own user's alone anyway (`PrivateFiles`).
        if let mode = PrivateFiles.mode(ofItemAtPath: directory), mode & 0o077 != 0 {
            warnings.warn(
                "The data directory is open to other users; chmod 700 it",
                metadata: ["sm.data_dir": "\(directory)", "sm.mode": "\(String(mode, radix: 8))"], logger: logger)
        }
        let (keys, generated) = try KeyStore(dataDirectory: directory).resolve(configuration)
        let sealingKey = try SealingKey.resolve(dataDirectory: directory)
        var environments: [EnvironmentKind: AppEnvironment] = [:]
        var operators: OperatorStore?
        // One gate for every password hash the server makes: as many at once as there are cores.
        let hasher = PasswordHasher(rounds: configuration.passwordRounds)
        for kind in EnvironmentKind.allCases {
            let settings = configuration.settings(for: kind)
            let registry = SchemaRegistry()
            let storage = try await provider.open(kind, registry: registry, indexes: settings.indexes)
            // `instrument`: the HTTP layer's database timer (`/metrics`), or the engine itself.
            let datastore = try await Datastore.open(
                storage: instrument(kind, storage.engine), registry: registry, inferenceEnabled: settings.schemaInference,
                userSchemas: settings.userSchemas, relationships: settings.relationships,
                schemas: settings.schemas.values.sorted { $0.name < $1.name }, clock: clock,
                passwordHasher: hasher, access: settings.access, expansionByteLimit: configuration.maxExpandedResponseBytes)
            if kind == .production {
                operators = OperatorStore(
                    storage: storage.operators, hasher: hasher, clock: clock)
            }
            let users = UserAccounts(
                datastore: datastore, store: storage.tokens, settings: settings, clock: clock,
                mailer: mailer ?? OutboxMailer(store: storage.tokens, clock: clock, environment: kind, logger: logger),
                nonces: storage.nonces, signedSessions: storage.signedSessions, sealingKey: sealingKey, logger: logger)
            environments[kind] = AppEnvironment(kind: kind, keys: keys[kind]!, settings: settings, datastore: datastore, users: users,
                push: TokenRegistry(store: storage.push, clock: clock))
            logger.info(
                "Environment ready",
                metadata: [
                    "sm.environment": "\(kind.rawValue)", "sm.database": "\(provider.location(of: kind))",
                    "sm.schemas": "\(registry.all().count)", "sm.schema_inference": "\(settings.schemaInference)",
                    "sm.permission_schemas": "\(settings.access.schemas.keys.sorted().joined(separator: ","))",
                ])
        }
        for kind in generated {
            logger.notice(
                "Generated API keys",
                metadata: [
                    "sm.environment": "\(kind.rawValue)", "sm.keys_file": "\(KeyStore(dataDirectory: directory).path)",
                    "sm.keys_command": "stackmob-server keys",
                ])
        }
        return Backend(
            configuration: configuration, development: environments[.development]!, production: environments[.production]!,
            generatedKeys: generated, mailer: mailer, files: fileStore ?? LocalFileStore(dataDirectory: directory, durable: configuration.durability == .full),
            failureLimiter: FailureLimiter(policy: configuration.failureLimits),
            forgotPasswordLimiter: FailureLimiter(policy: .forgotPassword(window: configuration.failureLimits.windowSeconds), accountWide: .refuses),
            operators: operators!, storage: provider, configurationWarnings: warnings)
    }
}
