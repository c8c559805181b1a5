import Foundation
import HummingbirdTesting
import StackMobCore
import StackMobTestSupport
import Testing

/// Two instances on one PostgreSQL database, each first writing one field of a new schema with
/// another type at the same moment: the loser is the 400 a single instance answers, never a 5xx,
/// and no value acknowledged is stored as another type than it was written as.
@Suite("Several instances on PostgreSQL: a type clash on a new field")
struct CrossInstanceTypeClashTests {
    @Test("integer against string, 10 new schemas: 201 or 400 only, and each 201's value kept its type", .enabled(if: TestServer.postgreSQLURL != nil, "needs STACKMOB_TEST_POSTGRESQL_URL"))
    func typeClash() async throws {
        try await TestServer.withDataDirectory { directory in
            let configuration = TestServer.configuration(dataDirectory: directory)
            try await TestServer.run(configuration: configuration) { first in
                try await TestServer.run(configuration: configuration) { second in
                    // Each round creates a schema on both instances at once: seconds per round while
                    // the whole suite shares the database, so a few rounds, each on connections of
                    // its own (a connection left idle past the server's timeout is closed).
                    for round in 0..<10 {
                        let schema = "clash\(round)"
                        async let integer = Self.create(port: first.port, schema: schema, id: "a", value: 7)
                        async let string = Self.create(port: second.port, schema: schema, id: "b", value: "7")
                        let outcomes = [("a", try await integer), ("b", try await string)]
                        for (id, response) in outcomes {
                            #expect([201, 400].contains(response.status.code), "round \(round) \(id): \(response.status.code) \(response.text)")
                            if response.status.code == 400 {
                                #expect(response.error == "k is an incompatible type, please check your schema", "\(response.text)")
                            }
                        }
                        for (id, response) in outcomes where response.status.code == 201 {
                            let stored = try await Self.read(port: first.port, "/\(schema)/\(id)").object?["k"]
                            #expect(stored == (id == "a" ? .integer(7) : .string("7")), "round \(round): \(id) acknowledged, stored as \(String(describing: stored))")
                        }
                    }
                }
            }
        }
    }

    private static func read(port: Int, _ path: String) async throws -> APIResponse {
        try await TestClient.withClient(host: "127.0.0.1", port: port) { connection in
            try await StackMobClient(connection: connection, port: port, publicKey: TestServer.developmentPublicKey).get(path)
        }
    }

    private static func create(port: Int, schema: String, id: String, value: JSONValue) async throws -> APIResponse {
        try await TestClient.withClient(host: "127.0.0.1", port: port) { connection in
            let client = StackMobClient(connection: connection, port: port, publicKey: TestServer.developmentPublicKey)
            return try await client.post("/\(schema)", ["\(schema)_id": .string(id), "k": value])
        }
    }
}
