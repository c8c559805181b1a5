import Hummingbird
import StackMobCore

/// `GET|POST /listapi` (PROTOCOL §13.2, D22; docs/guide.md, "listapi"): the environment's schemas
/// in two shapes, and its custom-code method names.
///
/// - Each schema by name at the top level, described as the hosted service described it and the
///   stackmob-ruby gem's `api_schema` reads it: `{"id", "type": "object", "primary_key",
///   "properties": {field: {"type", …}}}`, with JSON Schema's type names.
/// - `schemas`: each schema's fields with this server's type names (`string`, `array[integer]`,
///   `one_to_many:tag`, …), and `methods`: the custom-code methods. These two names are reserved:
///   no schema may take them.
struct ListAPIController {
    func addRoutes(to router: RecordingRouter<APIRouterBuilder>) {
        router.route(.get, "/listapi", list)
        router.route(.post, "/listapi", list)
    }

    @Sendable nonisolated(nonsending) func list(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try context.requireEnvironment()
        var listing: JSONObject = [:]
        var schemas: JSONObject = [:]
        for schema in environment.datastore.registry.all() {
            var fields = JSONObject(schema.fields.mapValues { JSONValue.string($0.name) })
            // The system fields every object carries (§4.1).
            fields[schema.primaryKey] = .string(FieldType.string.name)
            fields[SchemaDefinition.createdDate] = .string(FieldType.integer.name)
            fields[SchemaDefinition.lastModifiedDate] = .string(FieldType.integer.name)
            schemas[schema.name] = .object(fields)
            listing[schema.name] = Self.description(of: schema)
        }
        listing["schemas"] = .object(schemas)
        listing["methods"] = .array(environment.settings.customCode.map { JSONValue.string($0.name) })
        return JSONResponse.make(.object(listing))
    }

    /// A schema as the hosted service's `listapi` described it.
    static func description(of schema: SchemaDefinition) -> JSONValue {
        var properties: JSONObject = [:]
        for (field, type) in schema.fields {
            properties[field] = property(type)
        }
        properties[schema.primaryKey] = ["type": "string", "identity": true]
        properties[SchemaDefinition.createdDate] = ["type": "integer", "readonly": true]
        properties[SchemaDefinition.lastModifiedDate] = ["type": "integer", "readonly": true]
        properties[SchemaDefinition.owner] = ["type": "string", "readonly": true]
        return ["id": .string(schema.name), "type": "object", "primary_key": .string(schema.primaryKey), "properties": .object(properties)]
    }

    private static func property(_ type: FieldType) -> JSONValue {
        switch type {
        case .string: ["type": "string"]
        case .integer: ["type": "integer"]
        case .float: ["type": "number"]
        case .boolean: ["type": "boolean"]
        case .array(let element): ["type": "array", "items": ["type": .string(element == .float ? "number" : element.rawValue)]]
        case .geopoint: ["type": "object", "format": "geopoint"]
        case .password: ["type": "string", "format": "password"]
        case .binary: ["type": "string", "format": "binary"]
        case .relation(let target, toMany: false): ["type": "string", "$ref": .string(target)]
        case .relation(let target, toMany: true): ["type": "array", "items": ["type": "string", "$ref": .string(target)]]
        }
    }
}
