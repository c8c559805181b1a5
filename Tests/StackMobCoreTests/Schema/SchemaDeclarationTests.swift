import Foundation
@testable import StackMobCore
import Testing

@Suite("Schema declarations: parsing and planning")
struct SchemaDeclarationTests {
    static func load(_ schemas: String) throws -> StackMobConfiguration {
        try ConfigurationLoader.load(file: nil, environment: ["STACKMOB_ENVIRONMENTS__PRODUCTION__SCHEMAS": schemas])
    }

    @Test("declared indexes and permissions join the older keys' settings")
    func folded() throws {
        let configuration = try Self.load(
            #"{"todo": {"primary_key": "code", "fields": {"due": "integer", "tags": "array[string]", "owner": "one_to_one:user"}, "indexes": ["due", ["due", "tags"]], "permissions": {"all": "owner", "create": "logged_in"}}}"#)
        let todo = try #require(configuration.production.schemas["todo"])
        #expect(todo.primaryKey == "code")
        #expect(todo.fields == ["due": .integer, "tags": .array(.string), "owner": .relation(target: "user", toMany: false)])
        #expect(configuration.production.indexes["todo"] == [["due"], ["due", "tags"]])
        #expect(configuration.production.access.schemas["todo"] == SchemaPermissions(create: .loggedIn, read: .owner, update: .owner, delete: .owner))
        // The export format reads back to the same declaration.
        let document = SchemaDeclaration.document([todo])
        #expect(try SchemaDeclarations.parseDocument(document, source: "export")["todo"] == todo)
    }

    @Test(
        "bad declarations stop start-up naming the key",
        arguments: [
            (#"{"todo": {"fields": {"due": "date"}}}"#, "environments.production.schemas.todo.fields.due"),
            (#"{"todo": {"fields": {"due": "password"}}}"#, "environments.production.schemas.todo.fields.due"),
            (#"{"Todo": {}}"#, "environments.production.schemas.Todo"),
            (#"{"todo": {"fields": {"Due": "string"}}}"#, "environments.production.schemas.todo.fields.Due"),
            (#"{"todo": {"fields": {"createddate": "integer"}}}"#, "environments.production.schemas.todo.fields.createddate"),
            (#"{"todo": {"permissions": {"read": "friends"}}}"#, "environments.production.schemas.todo.permissions.read"),
            (#"{"todo": {"permissions": {"look": "open"}}}"#, "environments.production.schemas.todo.permissions.look"),
            (#"{"todo": {"indexes": [["due", 3]]}}"#, "environments.production.schemas.todo.indexes[0]"),
            (#"{"todo": {"colour": "red"}}"#, "environments.production.schemas.todo.colour"),
            (#"{"listapi": {}}"#, "environments.production.schemas.listapi"),
        ])
    func refused(schemas: String, key: String) {
        #expect(throws: ConfigurationError.self) { try Self.load(schemas) }
        do {
            _ = try Self.load(schemas)
        } catch let error as ConfigurationError {
            #expect(error.key == key, "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("a plan creates what is missing, reports contradictions and lists what only the store has")
    func plan() {
        let stored = [
            SchemaDefinition(name: "todo", fields: ["due": .string, "note": .string]),
            SchemaDefinition(name: "old", fields: [:]),
        ]
        let planner = SchemaPlanner(current: stored, currentIndexes: ["todo": [["due"]]])
        let plan = planner.plan([
            SchemaDeclaration(name: "todo", fields: ["due": .integer, "size": .float, "tag": .relation(target: "ghost", toMany: true)], indexes: [["due"], ["size"]]),
            SchemaDeclaration(name: "item", primaryKey: "sku", fields: ["todo": .relation(target: "todo", toMany: false)], permissions: SchemaPermissions(all: .loggedIn)),
        ])
        #expect(plan.conflicts.map(\.field) == ["due", "tag"])
        #expect(plan.conflicts.first?.description == "schema 'todo', field 'due': declared as integer, but it holds string values")
        #expect(plan.changes.contains(.createSchema("item", primaryKey: "sku")))
        #expect(plan.changes.contains(.addField(schema: "todo", field: "size", type: .float)))
        #expect(plan.changes.contains(.addIndex(schema: "todo", fields: ["size"])))
        #expect(!plan.changes.contains(.addIndex(schema: "todo", fields: ["due"])))
        #expect(plan.changes.contains(.setPermissions(schema: "item", SchemaPermissions(all: .loggedIn))))
        #expect(plan.extra == [.dropField(schema: "todo", field: "note"), .dropSchema("old")])
        let primaryKey = planner.plan([SchemaDeclaration(name: "todo", primaryKey: "code")])
        #expect(primaryKey.conflicts.first?.field == "code")
    }
}
