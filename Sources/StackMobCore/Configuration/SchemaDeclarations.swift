/// Schemas declared in configuration (`environments.<env>.schemas`): `{"<schema>": {"<field>":
/// "<type>"}}`, an empty object declaring the schema with its system fields only. Created at
/// start-up, so that an app whose first launch reads before it writes gets `200 []` instead of
/// the 404 of an unknown name (PROTOCOL §10.4), and so that production, where nothing is
/// inferred, can hold more than its user schemas.
public enum SchemaDeclarations {
    /// The type names a declaration may use: those of inference (§4.10), and `binary` for files.
    /// Relationships are declared under `relationships`; passwords belong to user schemas.
    static let typeNames = [
        "string", "integer", "float", "boolean", "geopoint", "binary", "array[string]", "array[integer]", "array[float]", "array[boolean]",
    ]

    static func parse(_ tree: JSONObject, key: String) throws -> [String: [String: FieldType]] {
        var declared: [String: [String: FieldType]] = [:]
        for (schema, value) in tree {
            let schemaKey = "\(key).\(schema)"
            guard Identifier.isValidSchemaName(schema), !Identifier.reservedSchemaNames.contains(schema) else {
                throw ConfigurationError(key: schemaKey, "'\(schema)' is not a valid schema name")
            }
            guard let fields = value.objectValue else {
                throw ConfigurationError(key: schemaKey, "must be an object of field: \"type\" ({} declares the schema alone)")
            }
            var types: [String: FieldType] = [:]
            for (field, typeName) in fields {
                let fieldKey = "\(schemaKey).\(field)"
                guard Identifier.isValidFieldName(field),
                    ![SchemaDefinition.createdDate, SchemaDefinition.lastModifiedDate, SchemaDefinition.owner, "\(schema)_id"].contains(field)
                else { throw ConfigurationError(key: fieldKey, "'\(field)' is not a field that can be declared") }
                guard let name = typeName.stringValue, typeNames.contains(name), let type = FieldType(name: name) else {
                    throw ConfigurationError(key: fieldKey, "must be one of \(typeNames.joined(separator: ", "))")
                }
                types[field] = type
            }
            // A schema has one geopoint field (§5.8).
            if types.values.filter({ $0 == .geopoint }).count > 1 {
                throw ConfigurationError(key: schemaKey, "declares more than one geopoint field")
            }
            declared[schema] = types
        }
        return declared
    }
}
