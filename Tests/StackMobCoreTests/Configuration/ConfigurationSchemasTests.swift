import Foundation
@testable import StackMobCore
import Testing

@Suite("Configuration: declared schemas")
struct ConfigurationSchemasTests {
    @Test("schemas declare names and typed fields")
    func parsed() throws {
        let configuration = try ConfigurationLoader.load(
            file: nil,
            environment: ["STACKMOB_ENVIRONMENTS__PRODUCTION__SCHEMAS": #"{"todo": {}, "note": {"title": "string", "at": "geopoint", "n": "array[integer]"}}"#])
        #expect(configuration.production.schemas == ["todo": [:], "note": ["title": .string, "at": .geopoint, "n": .array(.integer)]])
        #expect(configuration.development.schemas == [:])
    }

    @Test("bad declarations are refused with the key named", arguments: [
        (#"{"Todo": {}}"#, "schemas.Todo"),
        (#"{"listapi": {}}"#, "schemas.listapi"),
        (#"{"todo": []}"#, "schemas.todo"),
        (#"{"todo": {"title": "text"}}"#, "schemas.todo.title"),
        (#"{"todo": {"pass": "password"}}"#, "schemas.todo.pass"),
        (#"{"todo": {"owner": "one_to_one:user"}}"#, "schemas.todo.owner"),
        (#"{"todo": {"todo_id": "string"}}"#, "schemas.todo.todo_id"),
        (#"{"todo": {"a": "geopoint", "b": "geopoint"}}"#, "schemas.todo"),
    ])
    func invalid(value: String, key: String) {
        do {
            _ = try ConfigurationLoader.load(file: nil, environment: ["STACKMOB_ENVIRONMENTS__DEVELOPMENT__SCHEMAS": value])
            Issue.record("accepted \(value)")
        } catch {
            #expect("\(error)".contains("'environments.development.\(key)'"), "\(error)")
        }
    }

    @Test("a field declared under schemas and relationships is refused")
    func twice() {
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(
                file: nil,
                environment: [
                    "STACKMOB_ENVIRONMENTS__DEVELOPMENT__SCHEMAS": #"{"todo": {"category": "string"}}"#,
                    "STACKMOB_ENVIRONMENTS__DEVELOPMENT__RELATIONSHIPS": #"{"todo": {"category": "category"}}"#,
                ])
        }
    }
}
