/// Relationships declared in configuration (`environments.<env>.relationships`, PROTOCOL §4.10):
/// `{"<schema>": {"<field>": "<target>"}}` for one-to-one, `["<target>"]` for one-to-many: the
/// same shapes as the values (an id, an array of ids). Created at start-up, so that expansion and
/// nested upserts work before the first write, and in production where nothing is inferred.
public enum RelationshipDeclarations {
    static func parse(_ tree: JSONObject, key: String) throws -> [String: [String: FieldType]] {
        var declared: [String: [String: FieldType]] = [:]
        for (schema, value) in tree {
            let schemaKey = "\(key).\(schema)"
            guard Identifier.isValidSchemaName(schema), !Identifier.isReservedSchemaName(schema) else {
                throw ConfigurationError(key: schemaKey, "'\(schema)' is not a valid schema name")
            }
            guard let fields = value.objectValue else {
                throw ConfigurationError(key: schemaKey, "must be an object of field: \"schema\" (one-to-one) or field: [\"schema\"] (one-to-many)")
            }
            for (field, target) in fields {
                let fieldKey = "\(schemaKey).\(field)"
                guard Identifier.isValidFieldName(field), ![SchemaDefinition.createdDate, SchemaDefinition.lastModifiedDate, SchemaDefinition.owner, "\(schema)_id"].contains(field)
                else { throw ConfigurationError(key: fieldKey, "'\(field)' is not a field that can hold a relationship") }
                let type: FieldType
                switch target {
                case .string(let name) where isTarget(name):
                    type = .relation(target: name, toMany: false)
                case .array(let elements) where elements.count == 1 && elements[0].stringValue.map(isTarget) == true:
                    type = .relation(target: elements[0].stringValue!, toMany: true)
                default:
                    throw ConfigurationError(key: fieldKey, "must be a schema name (one-to-one) or a list holding one schema name (one-to-many)")
                }
                declared[schema, default: [:]][field] = type
            }
        }
        return declared
    }

    private static func isTarget(_ name: String) -> Bool {
        Identifier.isValidSchemaName(name) && !Identifier.isReservedSchemaName(name)
    }
}
