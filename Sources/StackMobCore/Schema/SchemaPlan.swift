/// What applying declarations to an environment's stored schemas would change (docs/operations.md,
/// "From development to production"): the basis of start-up, `schema diff`, `deploy` and the admin
/// API's deploy.
///
/// A plan is additive: it creates schemas and fields and adds indexes and permissions. A
/// declaration that contradicts stored data (another type, another primary key) is a conflict,
/// and a plan with conflicts is never applied. What is stored but not declared is listed as
/// `extra`: kept, unless the operator asks for it to be dropped (`deploy --drop`).
public struct SchemaPlan: Sendable, Equatable {
    public var changes: [SchemaChange] = []
    public var conflicts: [SchemaConflict] = []
    /// Stored but not declared: the destructive changes `--drop` would make.
    public var extra: [SchemaChange] = []

    public init() {}

    public var isEmpty: Bool { changes.isEmpty && conflicts.isEmpty }

    /// The definitions to write, one per schema whose table or columns change.
    public func definitions(current: [String: SchemaDefinition]) -> [SchemaDefinition] {
        var next: [String: SchemaDefinition] = [:]
        for change in changes {
            switch change {
            case .createSchema(let name, let primaryKey):
                next[name] = SchemaDefinition(name: name, primaryKey: primaryKey)
            case .addField(let schema, let field, let type):
                let base = next[schema] ?? current[schema] ?? SchemaDefinition(name: schema)
                next[schema] = base.adding([field: type])
            default:
                break
            }
        }
        return next.values.sorted { $0.name < $1.name }
    }
}

/// One step of a plan, printed one per line by `schema diff` and `deploy`.
public enum SchemaChange: Sendable, Equatable, CustomStringConvertible {
    case createSchema(String, primaryKey: String)
    case addField(schema: String, field: String, type: FieldType)
    case addIndex(schema: String, fields: [String])
    case setPermissions(schema: String, SchemaPermissions)
    case dropField(schema: String, field: String)
    case dropSchema(String)

    public var description: String {
        switch self {
        case .createSchema(let name, let primaryKey): "+ schema \(name) (primary key \(primaryKey))"
        case .addField(let schema, let field, let type): "+ field \(schema).\(field): \(type.name)"
        case .addIndex(let schema, let fields): "+ index \(schema)(\(fields.joined(separator: ", ")))"
        case .setPermissions(let schema, let permissions):
            "~ permissions \(schema): " + AccessVerb.allCases.map { "\($0.rawValue)=\(permissions.level(for: $0).configurationText)" }.joined(separator: " ")
        case .dropField(let schema, let field): "- field \(schema).\(field)"
        case .dropSchema(let name): "- schema \(name)"
        }
    }

    public var schema: String {
        switch self {
        case .createSchema(let name, _), .dropSchema(let name): name
        case .addField(let schema, _, _), .addIndex(let schema, _), .setPermissions(let schema, _), .dropField(let schema, _): schema
        }
    }
}

/// A declaration that contradicts stored data; names the schema and the field.
public struct SchemaConflict: Error, Sendable, Equatable, CustomStringConvertible {
    public let schema: String
    public let field: String
    public let reason: String
    /// A relationship to a schema that neither exists nor is declared: bad input rather than a
    /// contradiction of stored data.
    public let isMissingTarget: Bool

    public init(schema: String, field: String, reason: String, isMissingTarget: Bool = false) {
        self.schema = schema
        self.field = field
        self.reason = reason
        self.isMissingTarget = isMissingTarget
    }

    public var description: String { "schema '\(schema)', field '\(field)': \(reason)" }
}

extension SchemaPlan {
    /// The admin API's answer: the same lines the CLI prints.
    public func json(applied: Bool) -> JSONValue {
        [
            "applied": .bool(applied),
            "changes": .array(changes.map { .string($0.description) }),
            "conflicts": .array(conflicts.map { .string($0.description) }),
            "kept": .array(extra.map { .string(String($0.description.dropFirst(2))) }),
        ]
    }
}
