import Foundation

/// A fixture file (`serve --fixtures`, `fixtures`): what an environment holds at start-up and
/// after each reset, for CI.
///
/// ```json
/// {"operators": {"ci": "ci-password"},
///  "environments": {"development": {
///     "schemas": {"todo": {"fields": {"title": "string"}}},
///     "users": [{"username": "alice", "password": "secret"}],
///     "roles": {"admins": ["alice"]},
///     "objects": {"todo": [{"todo_id": "t1", "title": "first"}]}}}}
/// ```
/// `schemas` is the declaration format of `environments.<env>.schemas`; users carry plain
/// passwords, hashed on load; `roles` seeds `aclrole`; `operators` creates admin API accounts
/// (an ephemeral server has no other way to get one before it starts).
public struct Fixture: Sendable, Equatable {
    public struct Environment: Sendable, Equatable {
        public var schemas: [SchemaDeclaration] = []
        /// User objects by user schema (the key `users` means the first user schema).
        public var users: [JSONObject] = []
        public var roles: [String: [String]] = [:]
        /// Objects by schema, in file order.
        public var objects: [(schema: String, objects: [JSONObject])] = []

        public static func == (lhs: Environment, rhs: Environment) -> Bool {
            lhs.schemas == rhs.schemas && lhs.users == rhs.users && lhs.roles == rhs.roles
                && lhs.objects.map(\.schema) == rhs.objects.map(\.schema) && lhs.objects.map(\.objects) == rhs.objects.map(\.objects)
        }

        /// How many objects (users and roles included) a load writes.
        public var objectCount: Int { users.count + roles.count + objects.reduce(0) { $0 + $1.objects.count } }
    }

    public var operators: [String: String] = [:]
    public var environments: [EnvironmentKind: Environment] = [:]

    public init() {}

    public func environment(_ kind: EnvironmentKind) -> Environment {
        environments[kind] ?? Environment()
    }

    /// Reads and checks a fixture file; every problem names its key, as the configuration does.
    public static func load(path: String) throws -> Fixture {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(key: "fixtures", "cannot read the file '\(path)'")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(data, options: .init(allowsComments: true))
        } catch {
            throw ConfigurationError(key: "fixtures", "'\(path)' is not valid JSON: \(error)")
        }
        return try parse(value)
    }

    public static func parse(_ value: JSONValue) throws -> Fixture {
        guard let root = value.objectValue else { throw ConfigurationError(key: "fixtures", "must hold a JSON object") }
        try refuseUnknown(root, known: ["operators", "environments"], at: "fixtures")
        var fixture = Fixture()
        for (name, password) in root["operators"]?.objectValue ?? [:] {
            guard let password = password.stringValue else { throw ConfigurationError(key: "fixtures.operators.\(name)", "must be a password string") }
            fixture.operators[name] = password
        }
        for (name, section) in root["environments"]?.objectValue ?? [:] {
            let key = "fixtures.environments.\(name)"
            guard let kind = EnvironmentKind(rawValue: name) else { throw ConfigurationError(key: key, "must be development or production") }
            guard let section = section.objectValue else { throw ConfigurationError(key: key, "must be an object") }
            fixture.environments[kind] = try parseEnvironment(section, key: key)
        }
        return fixture
    }

    private static func parseEnvironment(_ section: JSONObject, key: String) throws -> Environment {
        try refuseUnknown(section, known: ["schemas", "users", "roles", "objects"], at: key)
        var environment = Environment()
        if let schemas = section["schemas"] {
            guard let tree = schemas.objectValue else { throw ConfigurationError(key: "\(key).schemas", "must be an object") }
            environment.schemas = try SchemaDeclarations.parse(tree, key: "\(key).schemas").values.sorted { $0.name < $1.name }
        }
        for (index, user) in (section["users"]?.arrayValue ?? []).enumerated() {
            guard let user = user.objectValue else { throw ConfigurationError(key: "\(key).users[\(index)]", "must be an object") }
            environment.users.append(user)
        }
        for (role, members) in section["roles"]?.objectValue ?? [:] {
            guard let members = members.arrayValue?.compactMap(\.stringValue) else {
                throw ConfigurationError(key: "\(key).roles.\(role)", "must be an array of user ids")
            }
            environment.roles[role] = members
        }
        for (schema, list) in (section["objects"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let list = list.arrayValue else { throw ConfigurationError(key: "\(key).objects.\(schema)", "must be an array of objects") }
            var objects: [JSONObject] = []
            for (index, object) in list.enumerated() {
                guard let object = object.objectValue else {
                    throw ConfigurationError(key: "\(key).objects.\(schema)[\(index)]", "must be an object")
                }
                objects.append(object)
            }
            environment.objects.append((schema, objects))
        }
        return environment
    }

    private static func refuseUnknown(_ object: JSONObject, known: [String], at key: String) throws {
        for name in object.keys.sorted() where !known.contains(name) {
            throw ConfigurationError(key: "\(key).\(name)", "unknown key (known here: \(known.joined(separator: ", ")))")
        }
    }
}
