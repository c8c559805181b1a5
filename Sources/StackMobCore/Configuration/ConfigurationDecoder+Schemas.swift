import Foundation

/// `environments.<env>.schemas` and `.schemas_file`: the declaration format (config/README.md,
/// "Schemas"). The older `relationships`, `indexes` and `permissions` keys are still read;
/// declarations are folded into the same settings, so the rest of the server sees one set of
/// indexes and permissions.
extension ConfigurationDecoder {
    func schemaDeclarations(into settings: inout EnvironmentSettings, inline: JSONObject?) throws {
        var declared: [String: SchemaDeclaration] = [:]
        if let file = try string("schemas_file") {
            declared = try Self.readSchemaFile(file, key: keyPath("schemas_file"))
        }
        if let inline {
            for (name, declaration) in try SchemaDeclarations.parse(inline, key: keyPath("schemas")) {
                guard declared[name] == nil else {
                    throw ConfigurationError(key: keyPath("schemas.\(name)"), "is also declared in schemas_file; declare a schema once")
                }
                declared[name] = declaration
            }
        }
        for (name, declaration) in declared {
            if let permissions = declaration.permissions {
                guard settings.access.schemas[name] == nil else {
                    throw ConfigurationError(key: keyPath("permissions.\(name)"), "is also declared under schemas.\(name).permissions; declare it once")
                }
                settings.access.schemas[name] = permissions
            }
            for (field, type) in declaration.fields {
                if let related = settings.relationships[name]?[field], related != type {
                    throw ConfigurationError(key: keyPath("relationships.\(name).\(field)"), "contradicts schemas.\(name).fields.\(field) (\(type.name))")
                }
            }
            for index in declaration.indexes where !(settings.indexes[name] ?? []).contains(index) {
                settings.indexes[name, default: []].append(index)
            }
        }
        settings.schemas = declared
    }

    /// A schema file: `{"schemas": {…}}`, JSON with `//` and `#` comments like the configuration.
    static func readSchemaFile(_ path: String, key: String) throws -> [String: SchemaDeclaration] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(key: key, "cannot read the file '\(path)'")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(data, options: .init(allowsComments: true))
        } catch {
            throw ConfigurationError(key: key, "'\(path)' is not valid JSON: \(error)")
        }
        return try SchemaDeclarations.parseDocument(value, source: path)
    }
}
