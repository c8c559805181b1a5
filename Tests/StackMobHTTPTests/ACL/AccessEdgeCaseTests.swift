import Foundation
import HTTPTypes
import StackMobCore
import StackMobTestSupport
import Testing

/// Access control where it meets the other features: file uploads, write answers, bulk nested
/// upserts and schemas that have no table yet (PROTOCOL §12, §7, §4.3).
@Suite("Access control: edge cases")
struct AccessEdgeCaseTests {
    static func envelope(_ bytes: [UInt8], filename: String) -> String {
        "Content-Type: image/png\nContent-Disposition: attachment; filename=\(filename)\nContent-Transfer-Encoding: base64\n\n"
            + Data(bytes).base64EncodedString()
    }

    static func configure(_ configuration: inout StackMobConfiguration) {
        configuration.development.access = AccessPolicy(schemas: [
            "vault": SchemaPermissions(all: .privateKey),
            "todo": SchemaPermissions(create: .loggedIn, read: .owner, update: .loggedIn, delete: .owner),
            "child": SchemaPermissions(create: .privateKey, read: .open, update: .privateKey, delete: .privateKey),
            "ghost": SchemaPermissions(all: .notAllowed),
        ])
    }

    @Test("a refused write with a file stores, declares and reveals nothing: 401 whether the id exists or not")
    func filesBehindPermissions() async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            Self.configure(&configuration)
            let clock = ManualClock()
            try await TestServer.run(configuration: configuration, clock: clock) { client in
                let fixture = try await ACLFixture.make(client, clock: clock, users: [:])
                #expect(try await fixture.send(.privateKey, .post, "/vault", json: ["vault_id": "known", "note": "x"]).status == .created)
                for id in ["known", "unknown"] {
                    let refused = try await fixture.send(.anonymous, .post, "/vault", json: ["vault_id": .string(id), "pic": .string(Self.envelope([1, 2], filename: "a.png"))])
                    #expect(refused.status == .unauthorized && refused.object == ["error": "Insufficient authorization"], "\(id): \(refused.text)")
                    let replaced = try await fixture.send(.anonymous, .put, "/vault/\(id)", json: ["pic": .string(Self.envelope([3], filename: "b.png"))])
                    #expect(replaced.status == .unauthorized, "\(id): \(replaced.text)")
                }
                #expect(!FileManager.default.fileExists(atPath: "\(directory)/files/development/vault"))
                let fields = try await client.get("/listapi").object?["schemas"]?.objectValue?["vault"]?.objectValue
                #expect(fields?["pic"] == nil)
            }
        }
    }

    @Test("a caller allowed to update but not to read gets back only the primary key")
    func writeAnswersHideUnreadableObjects() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: Self.configure, clock: clock) { client in
            let fixture = try await ACLFixture.make(client, clock: clock, users: ["olivia": [:], "eve": [:]])
            let created = try await fixture.send(.user("olivia"), .post, "/todo", json: ["todo_id": "t1", "secret": "olivia's plan", "tags": ["a"]])
            #expect(created.status == .created)
            let answers = [
                try await fixture.send(.user("eve"), .put, "/todo/t1", json: [:]),
                try await fixture.send(.user("eve"), .put, "/todo/t1/tags", json: []),
                try await fixture.send(.user("eve"), .post, "/todo", json: ["todo_id": "t1"], headers: ["X-StackMob-Relations": ""]),
            ]
            for answer in answers {
                #expect(answer.status == .ok, "\(answer.text)")
                #expect(answer.object == ["todo_id": "t1"], "\(answer.text)")
                #expect(!answer.text.contains("olivia"))
            }
            // The owner still gets the whole object.
            let own = try await fixture.send(.user("olivia"), .put, "/todo/t1", json: ["done": true])
            #expect(own.object?["secret"] == "olivia's plan")
        }
    }

    @Test("a caller who may update but not read learns nothing of a stored number through [inc]: counters are refused alike")
    func countersNoOracle() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: Self.configure, clock: clock) { client in
            let fixture = try await ACLFixture.make(client, clock: clock, users: ["olivia": [:], "eve": [:]])
            let created = try await fixture.send(.user("olivia"), .post, "/todo", json: ["todo_id": "t1", "pin": 4_321])
            #expect(created.status == .created)
            // The probe of a binary search: one delta overflows past the hidden value, the other
            // does not. Before, one answered 400 and the other 200.
            var answers: [APIResponse] = []
            for delta in [Int64.max - 4_000, Int64.max - 5_000, 1] {
                answers.append(try await fixture.send(.user("eve"), .put, "/todo/t1", json: ["pin[inc]": .integer(delta)]))
            }
            for answer in answers {
                #expect(answer.status == .unauthorized && answer.object == ["error": "Insufficient authorization"], "\(answer.text)")
            }
            // Upserts take the same path.
            let upsert = try await fixture.send(
                .user("eve"), .post, "/todo", json: ["todo_id": "t1", "pin[inc]": 1], headers: ["X-StackMob-Relations": ""])
            #expect(upsert.status == .unauthorized, "\(upsert.text)")
            // Nothing changed, and the owner's counters work.
            let own = try await fixture.send(.user("olivia"), .put, "/todo/t1", json: ["pin[inc]": 1])
            #expect(own.status == .ok && own.object?["pin"] == 4_322, "\(own.text)")
        }
    }

    @Test("a bulk nested upsert refused after earlier elements committed lists the rest as failed; refused first, it is a 401 and writes nothing")
    func bulkNestedUpsertRefusal() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: Self.configure, clock: clock) { client in
            let fixture = try await ACLFixture.make(client, clock: clock, users: [:])
            #expect(try await fixture.send(.privateKey, .post, "/child", json: ["child_id": "c0"]).status == .created)
            let mixed = try await fixture.send(
                .anonymous, .post, "/parent",
                json: [["parent_id": "p1", "kid": "c0"], ["parent_id": "p2", "kid": ["child_id": "c9", "name": "new"]], ["parent_id": "p3"]],
                headers: ["X-StackMob-Relations": "kid=child"])
            #expect(mixed.status == .ok, "\(mixed.text)")
            #expect(mixed.object?["succeeded"] == ["p1", "p3"])
            #expect(mixed.object?["failed"] == ["p2"])
            #expect(try await client.get("/child/c9").status == .notFound)

            let refusedFirst = try await fixture.send(
                .anonymous, .post, "/parent",
                json: [["parent_id": "q1", "kid": ["child_id": "c8", "name": "new"]], ["parent_id": "q2"]],
                headers: ["X-StackMob-Relations": "kid=child"])
            #expect(refusedFirst.status == .unauthorized)
            #expect(try await client.get("/parent/q2").status == .notFound)
        }
    }

    @Test("a refused caller learns nothing about the schema's fields: 401 comes before a query's 400")
    func refusalBeforeValidation() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: Self.configure, clock: clock) { client in
            let fixture = try await ACLFixture.make(client, clock: clock, users: [:])
            #expect(try await fixture.send(.privateKey, .post, "/vault", json: ["vault_id": "v1", "note": "x"]).status == .created)
            for (path, headers) in [
                ("/vault?nosuchfield=1", [:]), ("/vault?note=x", ["X-StackMob-OrderBy": "nosuchfield:asc"]),
                ("/vault/v1", ["X-StackMob-Select": "nosuchfield"]),
            ] as [(String, [String: String])] {
                let refused = try await fixture.send(.anonymous, .get, path, headers: headers)
                #expect(refused.status == .unauthorized && refused.object == ["error": "Insufficient authorization"], "\(path): \(refused.text)")
            }
            // The private key still gets the validation error.
            #expect(try await fixture.send(.privateKey, .get, "/vault?note=x", headers: ["X-StackMob-OrderBy": "nosuchfield:asc"]).status == .badRequest)
        }
    }

    @Test("a schema with no table yet still answers its level's refusal before 'not found'")
    func refusalsWithoutTable() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: Self.configure, clock: clock) { client in
            let fixture = try await ACLFixture.make(client, clock: clock, users: [:])
            let requests: [(HTTPRequest.Method, String, JSONValue?)] = [
                (.get, "/ghost", nil), (.get, "/ghost/g1", nil), (.put, "/ghost/g1", ["x": 1]), (.delete, "/ghost/g1", nil),
                (.delete, "/ghost?x=1", nil), (.put, "/ghost/g1/tags", ["a"]), (.delete, "/ghost/g1/tags/a", nil),
            ]
            for (method, path, json) in requests {
                let response = try await fixture.send(.anonymous, method, path, json: json)
                #expect(response.status == .methodNotAllowed && response.object == ["error": "Invalid HTTP method"], "\(method) \(path): \(response.text)")
            }
            // Past the level, a schema never written is an unknown name (§10.4).
            #expect(try await fixture.send(.privateKey, .get, "/ghost").status == .notFound)
        }
    }
}
