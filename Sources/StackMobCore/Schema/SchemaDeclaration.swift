/// One schema as an app declares it (`environments.<env>.schemas`, a schema file, the output of
/// `schema export`): its primary key, typed fields, indexes and permissions, in one place.
///
/// Declarations are additive: applying one creates what is missing and never drops anything, so a
/// field or schema left out of a declaration is kept (PROTOCOL §4.10; docs/operations.md, "From
/// development to production").
public struct SchemaDeclaration: Sendable, Equatable {
    public var name: String
    /// Nil: `<schema>_id`, or the login field of a user schema.
    public var primaryKey: String?
    /// Typed fields besides the system fields. `password` is never declared here: a user schema's
    /// password field comes from `user_schemas`.
    public var fields: [String: FieldType]
    /// Each one field, or several for a composite index.
    public var indexes: [[String]]
    /// Nil: not declared (open, or whatever `permissions` or a deploy set).
    public var permissions: SchemaPermissions?

    public init(
        name: String, primaryKey: String? = nil, fields: [String: FieldType] = [:], indexes: [[String]] = [],
        permissions: SchemaPermissions? = nil
    ) {
        self.name = name
        self.primaryKey = primaryKey
        self.fields = fields
        self.indexes = indexes
        self.permissions = permissions
    }
}

extension SchemaDeclaration {
    /// The declaration format (config/README.md, "Schemas"): keys are written only when they
    /// carry something, so an export reads like a hand-written file.
    public var json: JSONValue {
        var object: JSONObject = [:]
        if let primaryKey { object["primary_key"] = .string(primaryKey) }
        object["fields"] = .object(JSONObject(fields.mapValues { JSONValue.string($0.name) }))
        if !indexes.isEmpty {
            object["indexes"] = .array(indexes.map { $0.count == 1 ? .string($0[0]) : .array($0.map(JSONValue.string)) })
        }
        if let permissions {
            object["permissions"] = permissions.json
        }
        return .object(object)
    }

    /// A schema file or export: `{"schemas": {"<name>": <declaration>, …}}`.
    public static func document(_ declarations: [SchemaDeclaration]) -> JSONValue {
        .object(["schemas": .object(JSONObject(Dictionary(declarations.map { ($0.name, $0.json) }, uniquingKeysWith: { first, _ in first })))])
    }
}
