/// What the server knows about one schema: its name, primary key and typed fields.
///
/// The system fields (primary key, `createddate`, `lastmoddate`, `sm_owner`) are implied by every
/// schema and not listed in `fields`.
public struct SchemaDefinition: Sendable, Hashable {
    public let name: String
    public let primaryKey: String
    public private(set) var fields: [String: FieldType]

    public init(name: String, primaryKey: String? = nil, fields: [String: FieldType] = [:]) {
        self.name = name
        self.primaryKey = primaryKey ?? "\(name)_id"
        self.fields = fields
    }

    /// The most fields (besides the system fields) a schema may grow to by inference: each is a
    /// column, SQLite refuses tables of more than 2,000, and a wide row is slow to read anyway.
    public static let maxInferredFields = 500

    public static let createdDate = "createddate"
    public static let lastModifiedDate = "lastmoddate"
    public static let owner = "sm_owner"

    public func type(of field: String) -> FieldType? {
        fields[field]
    }

    public func isSystemField(_ field: String) -> Bool {
        field == primaryKey || field == Self.createdDate || field == Self.lastModifiedDate || field == Self.owner
    }

    /// Without the field (`deploy --drop`).
    public func removing(_ field: String) -> SchemaDefinition {
        var copy = self
        copy.fields[field] = nil
        return copy
    }

    public func adding(_ newFields: [String: FieldType]) -> SchemaDefinition {
        var copy = self
        copy.fields.merge(newFields) { existing, _ in existing }
        return copy
    }
}

extension SchemaDefinition {
    /// The registry's stored form: `{"primary_key": …, "fields": {"name": "type", …}}`.
    public var registryJSON: JSONValue {
        .object([
            "primary_key": .string(primaryKey),
            "fields": .object(JSONObject(fields.mapValues { JSONValue.string($0.name) })),
        ])
    }

    public init?(name: String, registryJSON: JSONValue) {
        guard let object = registryJSON.objectValue,
            let primaryKey = object["primary_key"]?.stringValue,
            let fieldObject = object["fields"]?.objectValue
        else { return nil }
        var fields: [String: FieldType] = [:]
        for (field, typeName) in fieldObject {
            guard let name = typeName.stringValue, let type = FieldType(name: name) else { return nil }
            fields[field] = type
        }
        self.init(name: name, primaryKey: primaryKey, fields: fields)
    }
}
