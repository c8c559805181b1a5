@testable import StackMobCore
import Testing

@Suite("ObjectWritePlanner")
struct ObjectWritePlannerTests {
    let schema = SchemaDefinition(name: "todo", fields: ["title": .string, "size": .float])

    @Test("known fields are conformed, new ones inferred, the primary key left to the caller")
    func plan() throws {
        let planner = ObjectWritePlanner(inferenceEnabled: true, caller: .anonymous)
        let plan = try planner.plan(["todo_id": "x", "title": "t", "size": 2, "tags": ["a"], "gone": nil], schema: schema, mode: .create)
        #expect(plan.values == ["title": "t", "size": 2.0, "tags": ["a"]])
        #expect(plan.definition.type(of: "tags") == .array(.string))
        #expect(plan.definition.type(of: "gone") == nil)
    }

    @Test("on update, null clears a known field")
    func clears() throws {
        let planner = ObjectWritePlanner(inferenceEnabled: true, caller: .anonymous)
        let plan = try planner.plan(["title": nil, "unknown": nil], schema: schema, mode: .update)
        #expect(plan.values == ["title": nil])
        #expect(plan.definition == schema)
    }

    @Test("without inference an unknown field is refused by name")
    func noInference() {
        let planner = ObjectWritePlanner(inferenceEnabled: false, caller: .anonymous)
        #expect(throws: DatastoreError.unknownField(schema: "todo", field: "extra")) {
            try planner.plan(["extra": 1], schema: schema, mode: .create)
        }
    }

    @Test("type errors use the create or the update text")
    func typeErrors() {
        let planner = ObjectWritePlanner(inferenceEnabled: true, caller: .anonymous)
        #expect(throws: DatastoreError.incompatibleType(field: "title")) { try planner.plan(["title": 1], schema: schema, mode: .create) }
        #expect(throws: DatastoreError.invalidType(field: "title")) { try planner.plan(["title": 1], schema: schema, mode: .update) }
    }

    @Test("sm_owner is taken only from the private key")
    func owner() throws {
        let anonymous = try ObjectWritePlanner(inferenceEnabled: true, caller: .anonymous).plan(["sm_owner": "user/x"], schema: schema, mode: .create)
        #expect(anonymous.values["sm_owner"] == nil)
        let user = try ObjectWritePlanner(inferenceEnabled: true, caller: .user(schema: "user", id: "a")).plan(["sm_owner": "user/x"], schema: schema, mode: .create)
        #expect(user.values["sm_owner"] == nil)
        let trusted = try ObjectWritePlanner(inferenceEnabled: true, caller: .privateKey).plan(["sm_owner": "user/x"], schema: schema, mode: .create)
        #expect(trusted.values["sm_owner"] == "user/x")
    }

    @Test("server-generated ids are 32 lower-case hex characters and unique")
    func ids() {
        let ids = (0..<1000).map { _ in ObjectID.generate() }
        #expect(Set(ids).count == 1000)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy { "0123456789abcdef".contains($0) } })
    }
}
