/// Reads the declaration format (`{"<schema>": {"primary_key", "fields", "indexes",
/// "permissions"}}`, config/README.md "Schemas") into `SchemaDeclaration`s.
///
/// Every problem names its key (`<key>.todo.fields.due`), so the same parser serves the
/// configuration (exit 78), schema files given to the CLI and the admin API (400). Nothing is
/// checked against stored data here; that happens when a declaration is applied.
public enum SchemaDeclarations {
    /// Spellings accepted for a field type, for messages.
    static let typeSpellings =
        "string, integer, float, boolean, geopoint, binary, array[string], array[integer], array[float], array[boolean], one_to_one:<schema>, one_to_many:<schema>"

    /// Parses the `schemas` object. `key` is the path of that object, for messages.
    public static func parse(_ tree: JSONObject, key: String) throws(ConfigurationError) -> [String: SchemaDeclaration] {
        var declared: [String: SchemaDeclaration] = [:]
        for (schema, value) in tree.sorted(by: { $0.key < $1.key }) {
            declared[schema] = try parse(schema: schema, value, key: "\(key).\(schema)")
        }
        return declared
    }

    /// Parses a schema file or an export: `{"schemas": {…}}`.
    public static func parseDocument(_ value: JSONValue, source: String) throws(ConfigurationError) -> [String: SchemaDeclaration] {
        guard let object = value.objectValue else { throw ConfigurationError(key: source, "must hold a JSON object {\"schemas\": {…}}") }
        for key in object.keys.sorted() where key != "schemas" {
            throw ConfigurationError(key: "\(source).\(key)", "unknown key (known here: schemas)")
        }
        guard let schemas = object["schemas"]?.objectValue else {
            throw ConfigurationError(key: "\(source).schemas", "must be an object of schema name: declaration")
        }
        return try parse(schemas, key: "\(source).schemas")
    }

    static func parse(schema: String, _ value: JSONValue, key: String) throws(ConfigurationError) -> SchemaDeclaration {
        guard Identifier.isValidSchemaName(schema), !Identifier.isReservedSchemaName(schema) else {
            throw ConfigurationError(key: key, "'\(schema)' is not a valid schema name (lower-case letters, digits, underscores, starting with a letter)")
        }
        guard let object = value.objectValue else {
            throw ConfigurationError(key: key, "must be an object with primary_key, fields, indexes and permissions (each optional)")
        }
        let known = ["primary_key", "fields", "indexes", "permissions"]
        for name in object.keys.sorted() where !known.contains(name) {
            throw ConfigurationError(key: "\(key).\(name)", "unknown key (known here: \(known.joined(separator: ", ")))")
        }
        var declaration = SchemaDeclaration(name: schema)
        switch object["primary_key"] {
        case nil, .null?: break
        case .string(let field)? where Identifier.isValidFieldName(field) && !isDateOrOwner(field):
            declaration.primaryKey = field
        default:
            throw ConfigurationError(key: "\(key).primary_key", "must be a valid field name other than createddate, lastmoddate and sm_owner")
        }
        let primaryKey = declaration.primaryKey ?? "\(schema)_id"
        switch object["fields"] {
        case nil, .null?: break
        case .object(let fields)?:
            for (field, typeValue) in fields.sorted(by: { $0.key < $1.key }) {
                let fieldKey = "\(key).fields.\(field)"
                guard Identifier.isValidFieldName(field), !isDateOrOwner(field), field != primaryKey else {
                    throw ConfigurationError(key: fieldKey, "'\(field)' is not a field that can be declared (a valid name, not a system field)")
                }
                guard let name = typeValue.stringValue, let type = FieldType(name: name), type != .password else {
                    throw ConfigurationError(key: fieldKey, "unknown type (known: \(typeSpellings))")
                }
                if let target = type.relationTarget, Identifier.isReservedSchemaName(target) {
                    throw ConfigurationError(key: fieldKey, "'\(target)' is not a schema a relationship can point to")
                }
                declaration.fields[field] = type
            }
        default:
            throw ConfigurationError(key: "\(key).fields", "must be an object of field name: type")
        }
        switch object["indexes"] {
        case nil, .null?: break
        case .array(let entries)?:
            for (position, entry) in entries.enumerated() {
                let fields = entry.stringValue.map { [$0] } ?? entry.arrayValue?.compactMap(\.stringValue) ?? []
                guard !fields.isEmpty, fields.count == (entry.arrayValue?.count ?? 1), fields.allSatisfy(Identifier.isValidFieldName) else {
                    throw ConfigurationError(key: "\(key).indexes[\(position)]", "must be a field name, or a list of field names for a composite index")
                }
                declaration.indexes.append(fields)
            }
        default:
            throw ConfigurationError(key: "\(key).indexes", "must be an array of field names, or of lists of field names for composite indexes")
        }
        switch object["permissions"] {
        case nil, .null?: break
        case .object(let verbs)?:
            do {
                let parent = String(key.dropLast(schema.count + 1))
                declaration.permissions = try AccessPolicyDeclarations.permissions([schema: .object(verbs)], key: parent)[schema]
            } catch let error as ConfigurationError {
                // Named under this declaration: `<key>.permissions.<verb>`, not `<key>.<verb>`.
                throw ConfigurationError(key: error.key.replacingPrefix(key, with: "\(key).permissions"), error.problem)
            } catch {
                throw ConfigurationError(key: "\(key).permissions", "\(error)")
            }
        default:
            throw ConfigurationError(key: "\(key).permissions", "must be an object of verb (create, read, update, delete or all): level")
        }
        return declaration
    }

    private static func isDateOrOwner(_ field: String) -> Bool {
        [SchemaDefinition.createdDate, SchemaDefinition.lastModifiedDate, SchemaDefinition.owner].contains(field)
    }
}

extension String {
    fileprivate func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }
}
