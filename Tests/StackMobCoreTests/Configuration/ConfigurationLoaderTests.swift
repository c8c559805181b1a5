import Foundation
@testable import StackMobCore
import Testing

@Suite("Configuration: defaults, file, environment variables, validation")
struct ConfigurationLoaderTests {
    @Test("no file and no variables gives the documented defaults")
    func defaults() throws {
        let configuration = try ConfigurationLoader.load(file: nil, environment: ["HOME": "/root"])
        #expect(configuration == StackMobConfiguration())
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.dataDirectory == "./stackmob-data")
        #expect(configuration.maxBodyBytes == 10_485_760)
        #expect(configuration.durability == .full)
        #expect(configuration.development.schemaInference)
        #expect(!configuration.production.schemaInference)
        #expect(configuration.development.userSchemas == [UserSchema(name: "user", loginField: "username", passwordField: "password")])
    }

    @Test("the example configuration in config/ loads and holds the defaults")
    func example() throws {
        let path = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("config/stackmob.example.json").path
        let configuration = try ConfigurationLoader.load(file: path, environment: [:])
        #expect(configuration == StackMobConfiguration())
    }

    @Test("a file with comments, then environment variables over it")
    func fileAndEnvironment() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try """
        // A comment
        {
          "app_name": "demo",
          "listen": {"port": 9000},
          "environments": {"production": {"schema_inference": true}}
        }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let configuration = try ConfigurationLoader.load(
            file: file,
            environment: [
                "STACKMOB_LISTEN__PORT": "9100",
                "STACKMOB_LIMITS__MAX_BODY_BYTES": "2048",
                "STACKMOB_STORAGE__SYNCHRONOUS": "normal",
                "STACKMOB_ENVIRONMENTS__DEVELOPMENT__SCHEMA_INFERENCE": "false",
                "STACKMOB_ENVIRONMENTS__PRODUCTION__PUBLIC_KEY": "b1b1b1b1-0000-4000-8000-000000000001",
                "STACKMOB_ENVIRONMENTS__PRODUCTION__USER_SCHEMAS": #"[{"name": "member", "login_field": "email"}]"#,
                "STACKMOB_ENVIRONMENTS__DEVELOPMENT__INDEXES": #"{"item": ["category", ["category", "price"]]}"#,
                "STACKMOB_ENVIRONMENTS__PRODUCTION__RELATIONSHIPS": #"{"todo": {"category": "category", "tags": ["tag"]}}"#,
                "UNRELATED": "ignored",
            ])
        #expect(configuration.appName == "demo")
        #expect(configuration.port == 9100)
        #expect(configuration.maxBodyBytes == 2048)
        #expect(configuration.durability == .normal)
        #expect(!configuration.development.schemaInference)
        #expect(configuration.production.schemaInference)
        #expect(configuration.production.publicKey == "b1b1b1b1-0000-4000-8000-000000000001")
        #expect(configuration.production.userSchemas == [UserSchema(name: "member", loginField: "email", passwordField: "password")])
        #expect(configuration.development.indexes == ["item": [["category"], ["category", "price"]]])
        #expect(configuration.production.relationships == [
            "todo": ["category": .relation(target: "category", toMany: false), "tags": .relation(target: "tag", toMany: true)]
        ])
    }

    @Test("invalid configuration names the key", arguments: [
        (["STACKMOB_LISTEN__PORT": "eighty"], "listen.port"),
        (["STACKMOB_LISTEN__PORT": "70000"], "listen.port"),
        (["STACKMOB_LOG_LEVEL": "loud"], "log_level"),
        (["STACKMOB_STORAGE__SYNCHRONOUS": "sometimes"], "storage.synchronous"),
        (["STACKMOB_LIMITS__MAX_BODY_BYTES": "0"], "limits.max_body_bytes"),
        (["STACKMOB_LIMITS__IDLE_TIMEOUT_SECONDS": "0"], "limits.idle_timeout_seconds"),
        (["STACKMOB_LISTEN__HOST": ""], "listen.host"),
        (["STACKMOB_ENVIRONMENTS__DEVELOPMENT__PUBLIC_KEY": "short"], "environments.development.public_key"),
        (["STACKMOB_ENVIRONMENTS__DEVELOPMENT__SCHEMA_INFERENCE": "maybe"], "environments.development.schema_inference"),
        (["STACKMOB_ENVIRONMENTS__DEVELOPMENT__USER_SCHEMAS": #"[{"name": "User"}]"#], "environments.development.user_schemas[0].name"),
        (["STACKMOB_ENVIRONMENTS__DEVELOPMENT__USER_SCHEMAS": #"[{"name": "u", "login_field": "p", "password_field": "p"}]"#],
         "environments.development.user_schemas[0].password_field"),
        (["STACKMOB_ENVIRONMENTS__DEVELOPMENT__USER_SCHEMAS": "not json"], "environments.development.user_schemas"),
        (["STACKMOB_ENVIRONMENTS__DEVELOPMENT__INDEXES": #"{"item": "category"}"#], "environments.development.indexes.item"),
        (["STACKMOB_ENVIRONMENTS__DEVELOPMENT__INDEXES": #"{"item": [["a", 1]]}"#], "environments.development.indexes.item"),
        (["STACKMOB_ENVIRONMENTS__DEVELOPMENT__INDEXES": #"{"item": [[]]}"#], "environments.development.indexes.item"),
        (["STACKMOB_ENVIRONMENTS__DEVELOPMENT__INDEXES": #"{"Item": ["category"]}"#], "environments.development.indexes.Item"),
        (["STACKMOB_ENVIRONMENTS__DEVELOPMENT__INDEXES": "[]"], "environments.development.indexes"),
        (["STACKMOB_ENVIRONMENTS__DEVELOPMENT__RELATIONSHIPS": #"{"todo": {"category": "Bad Name"}}"#],
         "environments.development.relationships.todo.category"),
        (["STACKMOB_ENVIRONMENTS__DEVELOPMENT__RELATIONSHIPS": #"{"todo": {"tags": ["a", "b"]}}"#],
         "environments.development.relationships.todo.tags"),
        (["STACKMOB_ENVIRONMENTS__DEVELOPMENT__RELATIONSHIPS": #"{"todo": {"todo_id": "x"}}"#],
         "environments.development.relationships.todo.todo_id"),
        (["STACKMOB_ENVIRONMENTS__DEVELOPMENT__RELATIONSHIPS": #"{"todo": "category"}"#], "environments.development.relationships.todo"),
        (["STACKMOB_ENVIRONMENTS__DEVELOPMENT__RELATIONSHIPS": #"{"todo": {"list": ["listapi"]}}"#], "environments.development.relationships.todo.list"),
        ([
            "STACKMOB_ENVIRONMENTS__DEVELOPMENT__PUBLIC_KEY": "b1b1b1b1-0000-4000-8000-000000000001",
            "STACKMOB_ENVIRONMENTS__PRODUCTION__PUBLIC_KEY": "b1b1b1b1-0000-4000-8000-000000000001",
        ], "environments.production.public_key"),
    ])
    func invalid(environment: [String: String], key: String) {
        #expect {
            try ConfigurationLoader.load(file: nil, environment: environment)
        } throws: { error in
            (error as? ConfigurationError)?.key == key
        }
    }

    @Test("a file that is not JSON names the file")
    func badFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try "{ not json".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(file: file, environment: [:]) }
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(file: "/nonexistent/x.json", environment: [:]) }
    }

    @Test("keys left unset are generated once, persisted owner-only, and reused")
    func generatedKeys() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = KeyStore(dataDirectory: directory)
        var configuration = StackMobConfiguration()
        configuration.production.publicKey = "b1b1b1b1-0000-4000-8000-000000000001"
        let first = try store.resolve(configuration)
        #expect(Set(first.generated) == [.development, .production])
        #expect(first.keys[.development]?.publicKey.count == 36)
        #expect(first.keys[.production]?.publicKey == "b1b1b1b1-0000-4000-8000-000000000001")
        let second = try store.resolve(configuration)
        #expect(second.generated.isEmpty)
        #expect(second.keys == first.keys)
        let permissions = try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }
}
