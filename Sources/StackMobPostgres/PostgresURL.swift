import Foundation
import NIOSSL
import PostgresNIO
import StackMobCore

/// `storage.postgresql.url` (`postgres://user:password@host:port/database`) as a client
/// configuration. Errors name the key, never the URL: it holds the password.
enum PostgresURL {
    static func clientConfiguration(_ settings: PostgreSQLSettings) throws -> PostgresClient.Configuration {
        let endpoint = try Endpoint(settings)
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
        let tls: PostgresConnection.Configuration.TLS
        switch settings.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        return PostgresConnection.Configuration(
            host: endpoint.host, port: endpoint.port, username: endpoint.user, password: endpoint.password, database: endpoint.database, tls: tls)
    }

    private struct Endpoint {
        let host: String
        let port: Int
        let user: String
        let password: String?
        let database: String?

        init(_ settings: PostgreSQLSettings) throws {
            guard let text = settings.url, let components = URLComponents(string: text),
                components.scheme == "postgres" || components.scheme == "postgresql", let host = components.host, !host.isEmpty
            else {
                throw ConfigurationError(key: "storage.postgresql.url", "must be postgres://user:password@host:port/database")
            }
            guard let user = components.user, !user.isEmpty else {
                throw ConfigurationError(key: "storage.postgresql.url", "must name a user (postgres://user@host/database)")
            }
            let database = String(components.path.drop { $0 == "/" })
            self.host = host
            port = components.port ?? 5432
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
