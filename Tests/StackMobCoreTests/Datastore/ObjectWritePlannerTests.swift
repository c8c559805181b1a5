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

    @Test("U+0000 anywhere in a value is refused by field, in both modes; other control characters are kept")
    func nul() throws {
        let planner = ObjectWritePlanner(inferenceEnabled: true, caller: .privateKey, relations: ["tag": "tag"])
        let refused: [JSONObject] = [
            ["title": "a\u{0}b"], ["note": "\u{0}"], ["tags": ["ok", "x\u{0}"]], ["tag": "t\u{0}1"], ["sm_owner": "user/\u{0}"],
        ]
        for body in refused {
            for mode in [ObjectWritePlanner.Mode.create, .update] {
                #expect(throws: DatastoreError.containsNUL(field: body.keys.first!)) { try planner.plan(body, schema: schema, mode: mode) }
            }
        }
        // A type error elsewhere in the body does not hide it, nor it a type error: fields in order.
        #expect(throws: DatastoreError.containsNUL(field: "note")) { try planner.plan(["note": "\u{0}", "title": 1], schema: schema, mode: .create) }
        #expect(throws: DatastoreError.incompatibleType(field: "size")) { try planner.plan(["size": "x", "title": "\u{0}"], schema: schema, mode: .create) }
        // A field name holding U+0000 is not a field name.
        #expect(throws: DatastoreError.invalidFieldName("a\u{0}b")) { try planner.plan(["a\u{0}b": "x"], schema: schema, mode: .create) }
        let kept = try planner.plan(["title": "\u{1}\n\t\u{1F}\u{7F}"], schema: schema, mode: .create)
        #expect(kept.values["title"] == "\u{1}\n\t\u{1F}\u{7F}")
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
