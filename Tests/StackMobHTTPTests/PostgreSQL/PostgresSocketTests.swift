import PostgresNIO
import StackMobCore
@testable import StackMobPostgres
import StackMobTestSupport
import Testing

/// `storage.postgresql.url` with `?host=<directory>`: PostgreSQL's Unix socket in that directory,
/// as libpq reads the same URL (docs/operations.md, "Running on PostgreSQL").
@Suite("PostgreSQL over its Unix socket")
struct PostgresSocketTests {
    private func endpoint(_ url: String, tls: PostgreSQLSettings.TLSMode = .disable) throws -> PostgresURL.Endpoint {
        var settings = PostgreSQLSettings()
        settings.url = url
        settings.tls = tls
        return try PostgresURL.Endpoint(settings)
    }

    @Test("host= names the socket's directory; the port names the socket; the URL's host may be left out")
    func socketPaths() throws {
        #expect(try endpoint("postgres://app@/stackmob?host=/run/postgresql").socket == "/run/postgresql/.s.PGSQL.5432")
        #expect(try endpoint("postgresql://app:pw@localhost:6543/stackmob?host=/tmp/pg/").socket == "/tmp/pg/.s.PGSQL.6543")
        let tcp = try endpoint("postgres://app:pw@db.internal:5433/stackmob")
        #expect(tcp.socket == nil && tcp.host == "db.internal" && tcp.port == 5433)
        let socket = try endpoint("postgres://app@/stackmob?host=/run/postgresql")
        #expect(socket.user == "app" && socket.database == "stackmob" && socket.password == nil)
    }

    @Test("a relative or repeated host=, no host at all, and TLS required over a socket are refused, naming the key")
    func refused() {
        for url in [
            "postgres://app@/stackmob?host=run/postgresql", "postgres://app@/stackmob?host=", "postgres://app@/stackmob?host=/a&host=/b",
            "postgres://app@/stackmob", "postgres://app@/stackmob?port=5432",
        ] {
            #expect(throws: ConfigurationError.self, "\(url)") { try endpoint(url) }
        }
        #expect {
            try endpoint("postgres://app@/stackmob?host=/run/postgresql", tls: .require)
        } throws: { error in
            (error as? ConfigurationError)?.key == "storage.postgresql.tls"
        }
    }

    @Test(
        "the server's connections go through the socket, and the API works over them",
        .enabled(if: TestServer.postgreSQLSocketURL != nil, "needs STACKMOB_TEST_POSTGRESQL_SOCKET_URL (scripts/pg_cluster.py run)"))
    func overTheSocket() async throws {
        let url = try #require(TestServer.postgreSQLSocketURL)
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.storage.engine = .postgresql
            configuration.storage.postgresql.url = url
            configuration.storage.postgresql.schemaPrefix = TestServer.schemaPrefix(for: directory)
            // PostgreSQL has no client address for a connection through its Unix socket.
            let storage = try await TestServer.storage(configuration).open(.development, registry: SchemaRegistry(), indexes: [:])
            let engine = try #require(storage.engine as? PostgresStorageEngine)
            let overSocket = try await engine.database.withConnection { connection in
                try await engine.database.execute(PostgresStatement("SELECT inet_client_addr() IS NULL", []), on: connection)
                    .first?.decode(Bool.self)
            }
            #expect(overSocket == true)
            try await engine.close()

            try await TestServer.run(configuration: configuration) { client in
                _ = try await client.create("todo", ["todo_id": "t1", "n": 1])
                #expect(try await client.get("/todo/t1").object?["n"] == 1)
            }
        }
    }
}
