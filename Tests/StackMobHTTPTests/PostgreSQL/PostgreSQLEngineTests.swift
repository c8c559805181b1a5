import Foundation
import StackMobCore
import StackMobPostgres
import StackMobTestSupport
import Testing

/// What only the PostgreSQL engine has: its query plans, and how it fails to start. The rest of
/// the suite runs on it too (README, the test command's second run).
@Suite("PostgreSQL engine")
struct PostgreSQLEngineTests {
    static let enabled = TestServer.postgreSQLURL != nil

    @Test("geo queries read the GiST index of the point, then check the exact distance", .enabled(if: enabled, "needs STACKMOB_TEST_POSTGRESQL_URL"))
    func geoIndexPlan() async throws {
        try await TestServer.withDataDirectory { directory in
            let configuration = TestServer.configuration(dataDirectory: directory)
            try await TestServer.run(configuration: configuration) { client in
                let created = try await client.post("/place", ["name": "origin", "loc": ["lat": 0, "lon": 0]])
                #expect(created.status == .created)
            }
            let storage = try await TestServer.storage(configuration).open(.development, registry: SchemaRegistry(), indexes: [:])
            let engine = try #require(storage.engine as? PostgresStorageEngine)
            let schema = try #require(try await engine.loadSchemaDefinitions().first { $0.name == "place" })
            let near = TypedFilter.condition(
                TypedCondition(field: "loc", target: .scalar, operation: .near(GeoPoint(lat: 0, lon: 0), maxDistance: 0.01)))
            let box = TypedFilter.condition(
                TypedCondition(
                    field: "loc", target: .scalar,
                    operation: .withinBox(southWest: GeoPoint(lat: -1, lon: -1), northEast: GeoPoint(lat: 1, lon: 1))))
            for filter in [near, box] {
                let plan = try await engine.queryPlan(schema, query: ObjectQuery(filter: filter, limit: 20)).joined(separator: "\n")
                #expect(plan.contains("_sm_geo_place.loc"), "\(plan)")
            }
            try await engine.close()
        }
    }

    @Test("index names past PostgreSQL's 63 bytes stay distinct and are read back by their columns", .enabled(if: enabled, "needs STACKMOB_TEST_POSTGRESQL_URL"))
    func longIndexNames() async throws {
        // Both names share their first 63 bytes: cut as PostgreSQL cuts them, they would be one
        // index, and the second CREATE INDEX IF NOT EXISTS would silently do nothing.
        let first = ["recorded_at_the_weather_station_in_local_time", "temperature_in_degrees_celsius"]
        let second = ["recorded_at_the_weather_station_in_local_time", "temperature_in_degrees_fahrenheit"]
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.development.indexes = ["measurement": [first, second]]
            try await TestServer.run(configuration: configuration) { client in
                let created = try await client.post(
                    "/measurement", [first[0]: 1, first[1]: 20.5, second[1]: 68.9])
                #expect(created.status == .created)
            }
            let storage = try await TestServer.storage(configuration).open(.development, registry: SchemaRegistry(), indexes: [:])
            let indexes = try await storage.engine.loadSchemaSettings().indexes["measurement"] ?? []
            #expect(indexes.contains(first), "\(indexes)")
            #expect(indexes.contains(second), "\(indexes)")
            try await storage.engine.close()
        }
    }

    @Test("an unreachable database stops start-up with a clear message and exit 69, not a hang")
    func unreachable() async throws {
        try await TestServer.withDataDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            // Port 1 on loopback: nothing listens there, connections are refused, and the pool
            // would retry forever.
            let port = 1
            let server = try ServerProcess(
                arguments: ["serve", "--port", "0", "--data-dir", directory], directory: directory,
                environment: [
                    "STACKMOB_STORAGE__ENGINE": "postgresql",
                    "STACKMOB_STORAGE__POSTGRESQL__URL": "postgres://app:secret-password@127.0.0.1:\(port)/app",
                    "STACKMOB_STORAGE__POSTGRESQL__CONNECT_TIMEOUT_SECONDS": "2",
                    "STACKMOB_PUSH__PORT": "0",
                ])
            #expect(await server.waitForExit(timeout: .seconds(30)) == 69)
            #expect(server.log.contains("did not answer within 2 s"), "\(server.log)")
            #expect(!server.log.contains("secret-password"))
        }
    }
}
