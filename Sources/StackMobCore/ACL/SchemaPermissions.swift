/// One permission level per verb for one schema (PROTOCOL §12.1).
public struct SchemaPermissions: Sendable, Equatable {
    public var create: PermissionLevel
    public var read: PermissionLevel
    public var update: PermissionLevel
    public var delete: PermissionLevel

    public init(create: PermissionLevel = .open, read: PermissionLevel = .open, update: PermissionLevel = .open, delete: PermissionLevel = .open) {
        self.create = create
        self.read = read
        self.update = update
        self.delete = delete
    }

    /// The same level for all four verbs.
    public init(all level: PermissionLevel) {
        self.init(create: level, read: level, update: level, delete: level)
    }

    /// Schemas inferred in development and the default user schema start open (§12.1).
    public static let open = SchemaPermissions(all: .open)

    public func level(for verb: AccessVerb) -> PermissionLevel {
        switch verb {
        case .create: create
        case .read: read
        case .update: update
        case .delete: delete
        }
    }

    public mutating func set(_ level: PermissionLevel, for verb: AccessVerb) {
        switch verb {
        case .create: create = level
        case .read: read = level
        case .update: update = level
        case .delete: delete = level
        }
    }
}

extension SchemaPermissions {
    /// `{"create": level, "read": …, "update": …, "delete": …}` in the configuration's spelling:
    /// how deploys record permissions and how exports and the admin API show them.
    public var json: JSONValue {
        .object(JSONObject(uniqueKeysWithValues: AccessVerb.allCases.map { ($0.rawValue, JSONValue.string(level(for: $0).configurationText)) }))
    }

    public init?(json: JSONValue) {
        guard let object = json.objectValue else { return nil }
        var permissions = SchemaPermissions.open
        for verb in AccessVerb.allCases {
            guard let text = object[verb.rawValue]?.stringValue, let level = PermissionLevel(configuration: text) else { return nil }
            permissions.set(level, for: verb)
        }
        self = permissions
    }
}
