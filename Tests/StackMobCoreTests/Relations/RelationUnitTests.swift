import Testing

@testable import StackMobCore

@Suite("Relationship parsing and typing")
struct RelationUnitTests {
    @Test("X-StackMob-Relations parses into a tree, parents in any order")
    func relationMap() throws {
        let map = try RelationMap.parse("author.friends=user&author=User&category=category")
        #expect(map.entries["author"]?.target == "user")
        #expect(map.entries["author"]?.children.entries["friends"]?.target == "user")
        #expect(map.entries["category"]?.children.isEmpty == true)
        #expect(try RelationMap.parse("").isEmpty)
    }

    @Test("malformed or too deep relation headers are refused", arguments: [
        "author", "author=", "=user", "a.b.c.d=x", "a=x&a=y", "Bad Name=x", "a..b=x", "a=listapi",
    ])
    func relationMapErrors(header: String) {
        #expect(throws: RelationError.self) { try RelationMap.parse(header) }
    }

    @Test("relationship types round-trip through their registry names; old names still read")
    func fieldTypeNames() {
        for type in [FieldType.relation(target: "user", toMany: false), .relation(target: "tag", toMany: true), .string, .array(.integer)] {
            #expect(FieldType(name: type.name) == type)
        }
        #expect(FieldType.relation(target: "user", toMany: true).name == "one_to_many:user")
        #expect(FieldType(name: "one_to_one:Bad Name") == nil)
        let definition = SchemaDefinition(name: "post", fields: ["author": .relation(target: "user", toMany: false), "title": .string])
        #expect(SchemaDefinition(name: "post", registryJSON: definition.registryJSON) == definition)
    }

    @Test("relation values conform: ids, arrays of ids kept once")
    func conform() {
        #expect(FieldValueRules.conform("a", to: .relation(target: "x", toMany: false)) == "a")
        #expect(FieldValueRules.conform(["a", "b", "a"], to: .relation(target: "x", toMany: true)) == ["a", "b"])
        #expect(FieldValueRules.conform([1], to: .relation(target: "x", toMany: true)) == nil)
        #expect(FieldValueRules.conform(["a"], to: .relation(target: "x", toMany: false)) == nil)
    }

    @Test("select paths parse; stars only at the end of a path")
    func selectPaths() throws {
        #expect(try QueryRequest.parseSelect("a, b.c ,b.*") == ["a", "b.c", "b.*"])
        #expect(throws: QueryError.self) { try QueryRequest.parseSelect("*") }
        #expect(throws: QueryError.self) { try QueryRequest.parseSelect("a.*.b") }
        #expect(throws: QueryError.self) { try QueryRequest.parseSelect("a..b") }
    }

    @Test("counters add to the stored value; missing counts as 0; non-numbers are type errors")
    func counters() throws {
        let planner = ObjectWritePlanner(inferenceEnabled: true, caller: .anonymous)
        let schema = SchemaDefinition(name: "photo", fields: ["likes": .integer, "title": .string])
        let plan = try planner.plan(["likes[inc]": -2, "views[inc]": 3], schema: schema, mode: .update, existing: ["likes": 5])
        #expect(plan.values["likes"] == 3)
        #expect(plan.values["views"] == 3)
        #expect(plan.definition.type(of: "views") == .integer)
        #expect(throws: DatastoreError.invalidType(field: "title")) {
            try planner.plan(["title[inc]": 1], schema: schema, mode: .update, existing: ["title": "x"])
        }
        #expect(throws: DatastoreError.invalidType(field: "likes")) {
            try planner.plan(["likes[inc]": "1"], schema: schema, mode: .update, existing: [:])
        }
    }
}
