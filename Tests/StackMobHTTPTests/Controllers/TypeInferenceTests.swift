import StackMobCore
import StackMobTestSupport
import Testing

/// Development infers a field's type from its first value, then enforces it (PROTOCOL §4.10, §14).
@Suite("Schema inference, then type enforcement")
struct TypeInferenceTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let first: JSONValue
        let second: JSONValue
        let accepted: Bool
        /// What a read returns for `second` when it was accepted.
        var stored: JSONValue? = nil
        var testDescription: String { "\(JSONWriter.string(first)) then \(JSONWriter.string(second))" }
    }

    static let cases: [Case] = [
        Case(first: "text", second: "more", accepted: true),
        Case(first: "text", second: 5, accepted: false),
        Case(first: "text", second: true, accepted: false),
        Case(first: 5, second: 7, accepted: true),
        Case(first: 5, second: 18.5, accepted: false),
        Case(first: 5, second: "5", accepted: false),
        Case(first: 5, second: true, accepted: false),
        Case(first: 1.5, second: 2, accepted: true, stored: 2.0),
        Case(first: 1.5, second: "1.5", accepted: false),
        Case(first: true, second: false, accepted: true),
        Case(first: true, second: 1, accepted: false),
        Case(first: true, second: 2.5, accepted: false),
        Case(first: true, second: ["x"], accepted: false),
        Case(first: ["a", "b"], second: ["c"], accepted: true),
        Case(first: ["a"], second: [1, 2], accepted: false),
        Case(first: ["a"], second: ["a", 1], accepted: false),
        Case(first: ["a"], second: [], accepted: true),
        Case(first: [1, 2], second: [3], accepted: true),
        Case(first: [1, 2], second: ["x"], accepted: false),
        Case(first: [1, 2], second: [1.5], accepted: false),
        Case(first: [1, 2.5], second: [1], accepted: true, stored: [1.0]),
        Case(first: [true], second: [false, true], accepted: true),
        Case(first: [true], second: [1], accepted: false),
        Case(first: ["lat": 10, "lon": 20], second: ["lat": -33.5, "lon": 151.25], accepted: true),
        Case(first: ["lat": 10, "lon": 20], second: ["lat": 91, "lon": 0], accepted: false),
        Case(first: ["lat": 10, "lon": 20], second: "10,20", accepted: false),
        Case(first: "text", second: ["lat": 1, "lon": 2], accepted: false),
    ]

    @Test("on create: a conflicting value is a 400 with the 'incompatible type' text", arguments: cases)
    func create(_ testCase: Case) async throws {
        try await TestServer.run { client in
            _ = try await client.create("thing", ["value": testCase.first])
            let response = try await client.post("/thing", ["thing_id": "second", "value": testCase.second])
            if testCase.accepted {
                #expect(response.status == .created)
                let stored = try await client.get("/thing/second").object?["value"]
                #expect(stored == (testCase.stored ?? testCase.second))
            } else {
                #expect(response.status == .badRequest)
                #expect(response.error == "value is an incompatible type, please check your schema")
                #expect(try await client.get("/thing/second").status == .notFound)
            }
        }
    }

    @Test("on update: a conflicting value is a 400 with the 'invalid type' text, the object unchanged", arguments: cases)
    func update(_ testCase: Case) async throws {
        try await TestServer.run { client in
            _ = try await client.create("thing", ["thing_id": "t", "value": testCase.first, "other": "kept"])
            let before = try await client.get("/thing/t").object
            let response = try await client.put("/thing/t", ["value": testCase.second, "other": "changed"])
            if testCase.accepted {
                #expect(response.status == .ok)
                #expect(response.object?["value"] == (testCase.stored ?? testCase.second))
            } else {
                #expect(response.status == .badRequest)
                #expect(response.error == "value has invalid type, please check your schema")
                #expect(try await client.get("/thing/t").object == before)
            }
        }
    }

    @Test("a new field on an existing schema is inferred and then enforced")
    func newField() async throws {
        try await TestServer.run { client in
            _ = try await client.create("thing", ["thing_id": "t", "a": 1])
            let updated = try await client.put("/thing/t", ["b": "new field"])
            #expect(updated.status == .ok)
            #expect(updated.object?["b"] == "new field")
            #expect(try await client.put("/thing/t", ["b": 3]).status == .badRequest)
            #expect(try await client.post("/thing", ["b": false]).status == .badRequest)
        }
    }

    @Test("production never creates schemas or fields: each unknown one is a 400 naming it")
    func production() async throws {
        try await TestServer.run { client in
            let production = client.production()
            let unknownSchema = try await production.post("/widget", ["name": "x"])
            #expect(unknownSchema.status == .badRequest)
            #expect(unknownSchema.error == "Schema 'widget' does not exist")
            // A single segment that is neither a schema nor a custom-code method: 404 (§10.4).
            let unknownName = try await production.get("/widget")
            #expect(unknownName.status == .notFound)
            #expect(unknownName.error == "No custom code method or schema named 'widget'")
            #expect(try await production.get("/widget/1").object == ["error": "object instance does not exist"])
            // The user schema is declared by configuration, so it exists, with only its password field.
            let unknownField = try await production.post("/user", ["username": "ann", "password": "pw", "age": 30])
            #expect(unknownField.status == .badRequest)
            #expect(unknownField.error == "Field 'age' does not exist in schema 'user'")
            let created = try await production.post("/user", ["username": "ann", "password": "pw"])
            #expect(created.status == .created)
            // Development is a separate data set.
            #expect(try await client.get("/user/ann").status == .notFound)
            #expect(try await client.production(version: 3).get("/user/ann").status == .ok)
        }
    }
}
