/// Which database keeps the data (`storage`): the embedded SQLite files by default, or a
/// PostgreSQL server that several instances can share.
public struct StorageSettings: Sendable, Equatable {
    public enum Engine: String, Sendable, CaseIterable {
        case sqlite
        case postgresql
    }

    /// How hard a SQLite commit waits for the disk (SQLite's `synchronous` pragma).
    public enum Durability: String, Sendable, CaseIterable {
        /// Every commit is fsynced: a committed write survives a power loss. The default.
        case full
        /// Commits survive a crash of the process; the last ones may be lost on power loss.
        case normal
    }

    public var engine = Engine.sqlite
    /// SQLite only (`storage.synchronous`).
    public var durability = Durability.full
    public var postgresql = PostgreSQLSettings()

    public init() {}
}

/// `storage.postgresql`. Each environment lives in its own PostgreSQL schema of the one database
/// (`stackmob_development`, `stackmob_production`), so one URL serves both.
public struct PostgreSQLSettings: Sendable, Equatable {
    public enum TLSMode: String, Sendable, CaseIterable {
        case disable
        /// TLS when the server offers it.
        case prefer
        /// TLS or no connection, with the server's certificate verified.
        case require
    }

    /// `postgres://user:password@host:port/database`; required with `storage.engine: postgresql`.
    /// Secret (it holds the password): never logged.
    public var url: String?
    /// Connections of each environment's pool, opened at start and kept (a fixed-size pool).
    public var poolSize = 10
    public var tls = TLSMode.disable
    /// PostgreSQL's `statement_timeout`: a statement running longer is cancelled (the request
    /// fails with 503 rather than holding a connection).
    public var statementTimeoutSeconds = 30
    /// How long start-up waits for the database before giving up with a clear message.
    public var connectTimeoutSeconds = 10
    /// The schema names get this prefix: `<prefix>_development`, `<prefix>_production`
    /// (tests give each run its own).
    public var schemaPrefix = "stackmob"

    public init() {}

    public func schemaName(for environment: EnvironmentKind) -> String {
        "\(schemaPrefix)_\(environment.rawValue)"
    }
}
