import StackMobCore
import Testing

/// The fixture file format and import's progress text (docs/operations.md, "Use it in CI").
@Suite("Fixture files and import progress")
struct FixtureTests {
    @Test("a fixture's sections are read per environment, objects in file order")
    func parses() throws {
        let fixture = try Fixture.parse([
            "operators": ["ci": "ci-password-1"],
            "environments": [
                "production": [
                    "schemas": ["todo": ["fields": ["title": "string"]]],
                    "users": [["username": "ann", "password": "pw"]],
                    "roles": ["admins": ["ann"]],
                    "objects": ["todo": [["todo_id": "b"], ["todo_id": "a"]]],
                ]
            ],
        ])
        #expect(fixture.operators == ["ci": "ci-password-1"])
        let production = fixture.environment(.production)
        #expect(production.schemas.map(\.name) == ["todo"])
        #expect(production.roles == ["admins": ["ann"]])
        #expect(production.objects.first?.objects.compactMap { $0["todo_id"]?.stringValue } == ["b", "a"])
        #expect(production.objectCount == 4)
        #expect(fixture.environment(.development).objectCount == 0)
    }

    @Test("a bad fixture names the key", arguments: [
        (["environments": ["staging": [:]]] as JSONValue, "fixtures.environments.staging"),
        (["environments": ["development": ["objects": ["todo": [1]]]]] as JSONValue, "fixtures.environments.development.objects.todo[0]"),
        (["environments": ["development": ["schemas": ["todo": ["fields": ["x": "colour"]]]]]] as JSONValue, "fixtures.environments.development.schemas.todo"),
        (["users": []] as JSONValue, "fixtures.users"),
    ])
    func refuses(value: JSONValue, key: String) {
        #expect {
            _ = try Fixture.parse(value)
        } throws: { error in
            (error as? ConfigurationError)?.key.hasPrefix(key) == true
        }
    }

    @Test("import progress: a bar redrawn in place on a terminal, a line per tenth otherwise")
    func progress() {
        let terminal = ImportProgress(total: 10, terminal: true)
        #expect(terminal.text(done: 5, previous: 0) == "\r[###############---------------] 5/10 objects")
        #expect(terminal.text(done: 10, previous: 5)?.hasSuffix("10/10 objects\n") == true)
        let plain = ImportProgress(total: 1000, terminal: false)
        #expect(plain.text(done: 50, previous: 0) == nil)
        #expect(plain.text(done: 100, previous: 50) == "Imported 100 of 1000 objects\n")
        #expect(plain.text(done: 1000, previous: 1000) == "Imported 1000 of 1000 objects\n")
    }
}
