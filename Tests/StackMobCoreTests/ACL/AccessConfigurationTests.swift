@testable import StackMobCore
import Testing

@Suite("Configuration: permissions and roles (PROTOCOL §12)")
struct AccessConfigurationTests {
    @Test("permissions per environment: verbs, `all` with overrides, roles")
    func parses() throws {
        let configuration = try ConfigurationLoader.load(
            file: nil,
            environment: [
                "STACKMOB_ENVIRONMENTS__PRODUCTION__PERMISSIONS": #"""
                {"todo": {"create": "logged_in", "read": "owner", "update": "owner", "delete": "private_key"},
                 "note": {"all": "relation:collaborators", "delete": "not_allowed"},
                 "post": {"read": "owner_relation:friends"}, "secret": {"all": "role:admin"}}
                """#,
                "STACKMOB_ENVIRONMENTS__PRODUCTION__ROLES": #"{"admin": ["alice", "bob"]}"#,
            ])
        let access = configuration.production.access
        #expect(access.schemas["todo"] == SchemaPermissions(create: .loggedIn, read: .owner, update: .owner, delete: .privateKey))
        #expect(
            access.schemas["note"]
                == SchemaPermissions(create: .objectRelation("collaborators"), read: .objectRelation("collaborators"), update: .objectRelation("collaborators"), delete: .notAllowed))
        #expect(access.schemas["post"] == SchemaPermissions(read: .ownerRelation("friends")))
        #expect(access.schemas["secret"] == SchemaPermissions(all: .role("admin")))
        #expect(access.roles == ["admin": ["alice", "bob"]])
        // The other environment is untouched: everything open.
        #expect(configuration.development.access == AccessPolicy())
    }

    @Test("unknown levels, unknown verbs, bad names are refused with the key named")
    func invalid() {
        let variable = "STACKMOB_ENVIRONMENTS__PRODUCTION__PERMISSIONS"
        let cases: [(String, String, String)] = [
            (variable, #"{"todo": {"read": "owners"}}"#, "permissions.todo.read"),
            (variable, #"{"todo": {"write": "owner"}}"#, "permissions.todo.write"),
            (variable, #"{"todo": {"read": "relation:Bad-Field"}}"#, "permissions.todo.read"),
            (variable, #"{"todo": {"all": "role:"}}"#, "permissions.todo.all"),
            (variable, #"{"todo": {"read": 3}}"#, "permissions.todo.read"),
            (variable, #"{"todo": "owner"}"#, "permissions.todo"),
            (variable, #"{"Todo!": {"read": "owner"}}"#, "permissions.Todo!"),
            (variable, #"[1]"#, "permissions"),
            ("STACKMOB_ENVIRONMENTS__PRODUCTION__ROLES", #"{"admin": "alice"}"#, "roles.admin"),
            ("STACKMOB_ENVIRONMENTS__PRODUCTION__ROLES", #"{"Admin Team": ["alice"]}"#, "roles.Admin Team"),
            ("STACKMOB_ENVIRONMENTS__PRODUCTION__ROLES", #"{"admin": [""]}"#, "roles.admin"),
        ]
        for (name, value, key) in cases {
            do {
                _ = try ConfigurationLoader.load(file: nil, environment: [name: value])
                Issue.record("\(name)=\(value) was accepted")
            } catch {
                #expect(error is ConfigurationError)
                #expect("\(error)".contains(key), "\(error)")
            }
        }
    }
}
