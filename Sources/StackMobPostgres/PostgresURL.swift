import Foundation
import NIOSSL
import PostgresNIO
import StackMobCore

/// `storage.postgresql.url` (`postgres://user:password@host:port/database`) as a client
/// configuration. Errors name the key, never the URL: it holds the password.
///
/// A PostgreSQL on the same machine can be reached through its Unix socket, written as libpq
/// writes it, so that a URL other tools use works here unchanged:
/// `postgres://user@/database?host=/run/postgresql` connects to `/run/postgresql/.s.PGSQL.5432`
/// (the port, when given, names the socket). PostgreSQL can then authenticate the server's
/// operating-system user (`peer`), with no password to configure.
enum PostgresURL {
    static func clientConfiguration(_ settings: PostgreSQLSettings) throws -> PostgresClient.Configuration {
        let endpoint = try Endpoint(settings)
        if let socket = endpoint.socket {
            return PostgresClient.Configuration(
                unixSocketPath: socket, username: endpoint.user, password: endpoint.password, database: endpoint.database)
        }
        let tls: PostgresClient.Configuration.TLS
        switch settings.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(.makeClientConfiguration())
        case .require: tls = .require(.makeClientConfiguration())
        }
        return PostgresClient.Configuration(
            host: endpoint.host, port: endpoint.port, username: endpoint.user, password: endpoint.password, database: endpoint.database, tls: tls)
    }

    /// The same server, user and TLS mode for a connection of its own outside the pool (the
    /// schema listener, `PostgresSchemaListener`). Builds a TLS context: call it off event loops.
    static func connectionConfiguration(_ settings: PostgreSQLSettings) throws -> PostgresConnection.Configuration {
        let endpoint = try Endpoint(settings)
        if let socket = endpoint.socket {
            return PostgresConnection.Configuration(
                unixSocketPath: socket, username: endpoint.user, password: endpoint.password, database: endpoint.database)
        }
        let tls: PostgresConnection.Configuration.TLS
        switch settings.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        return PostgresConnection.Configuration(
            host: endpoint.host, port: endpoint.port, username: endpoint.user, password: endpoint.password, database: endpoint.database, tls: tls)
    }

    struct Endpoint {
        let host: String
        let port: Int
        /// The Unix socket's path (`?host=<directory>`), in place of `host`.
        let socket: String?
        let user: String
        let password: String?
        let database: String?

        init(_ settings: PostgreSQLSettings) throws {
            guard let text = settings.url, let components = URLComponents(string: text),
                components.scheme == "postgres" || components.scheme == "postgresql"
            else {
                throw ConfigurationError(key: "storage.postgresql.url", "must be postgres://user:password@host:port/database")
            }
            let directories = components.queryItems?.filter { $0.name == "host" }.map { $0.value ?? "" } ?? []
            guard directories.count <= 1, directories.allSatisfy({ $0.hasPrefix("/") }) else {
                throw ConfigurationError(key: "storage.postgresql.url", "may name one host= parameter, the directory of PostgreSQL's Unix socket (?host=/run/postgresql)")
            }
            let host = components.host ?? ""
            guard !host.isEmpty || !directories.isEmpty else {
                throw ConfigurationError(key: "storage.postgresql.url", "must be postgres://user:password@host:port/database")
            }
            guard let user = components.user, !user.isEmpty else {
                throw ConfigurationError(key: "storage.postgresql.url", "must name a user (postgres://user@host/database)")
            }
            port = components.port ?? 5432
            if let directory = directories.first {
                guard settings.tls != .require else {
                    throw ConfigurationError(key: "storage.postgresql.tls", "cannot be require over a Unix socket (?host=), which carries no TLS")
                }
                socket = (directory.hasSuffix("/") ? String(directory.dropLast()) : directory) + "/.s.PGSQL.\(port)"
            } else {
                socket = nil
            }
            let database = String(components.path.drop { $0 == "/" })
            self.host = host
            self.user = user.removingPercentEncoding ?? user
            password = components.password.map { $0.removingPercentEncoding ?? $0 }
            self.database = database.isEmpty ? nil : database
        }
    }

    /// The URL without its password, for logs.
    static func redacted(_ settings: PostgreSQLSettings) -> String {
        guard let text = settings.url, var components = URLComponents(string: text) else { return "postgresql" }
        if components.password != nil { components.password = "***" }
        return components.string ?? "postgresql"
    }
}
