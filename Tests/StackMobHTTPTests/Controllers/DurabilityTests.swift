import Foundation
import HummingbirdTesting
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("Persistence and concurrency")
struct DurabilityTests {
    @Test("objects, inferred schemas and generated keys survive a restart")
    func restart() async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.development.publicKey = nil
            configuration.development.privateKey = nil
            let keysBefore = try KeyStore(dataDirectory: directory).resolve(configuration).keys
            configuration.development.publicKey = keysBefore[.development]?.publicKey
            try await TestServer.run(configuration: configuration) { client in
                _ = try await client.create("todo", ["todo_id": "kept", "n": 1, "tags": ["a"]])
                _ = try await client.create("user", ["username": "ann", "password": "pw"])
            }
            // Start again on the same directory, keys from the keys file this time.
            configuration.development.publicKey = nil
            let keysAfter = try KeyStore(dataDirectory: directory).resolve(configuration).keys
            #expect(keysAfter[.development] == keysBefore[.development])
            configuration.development.publicKey = keysAfter[.development]?.publicKey
            try await TestServer.run(configuration: configuration) { client in
                let object = try await client.get("/todo/kept").object
                #expect(object?["n"] == 1)
                #expect(object?["tags"] == ["a"])
                // The inferred type is still enforced.
                #expect(try await client.put("/todo/kept", ["n": "x"]).status == .badRequest)
                #expect(try await client.get("/user/ann").status == .ok)
            }
        }
    }

    @Test("50 concurrent creates over separate connections are all stored")
    func concurrentCreates() async throws {
        try await TestServer.run { client in
            let port = client.port
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        // Fifty schema changes at once queue behind each other on PostgreSQL: on a
                        // busy CI machine one waited longer than the client's default 15 s. The
                        // test is about every write being stored, not about how long it took.
                        try await TestClient.withClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(90))) { connection in
                            // Every writer also introduces a field of its own on the same schema.
                            let response = try await StackMobClient(connection: connection, port: port, publicKey: TestServer.developmentPublicKey)
                                .post("/race", ["race_id": .string("r\(index)"), "n": .integer(Int64(index)), "f\(index)": true])
                            return Int(response.status.code)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.count == 50)
            #expect(statuses.allSatisfy { $0 == 201 })
            let all = try #require(try await client.get("/race").array)
            #expect(all.count == 50)
            let numbers = Set(all.compactMap { $0.objectValue?["n"]?.integerValue })
            #expect(numbers == Set(0..<50))
            // Every concurrently inferred field made it into the schema.
            #expect(try await client.get("/race/r7").object?["f7"] == true)
            #expect(try await client.put("/race/r7", ["f3": "not a boolean"]).status == .badRequest)
        }
    }
}

