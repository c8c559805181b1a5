import Hummingbird
import StackMobCore

/// `GET|POST /listapi` (PROTOCOL §13.2, D22): the environment's schemas with their field types,
/// and its custom-code method names. Clients only need a 200 with a body; developers read it.
struct ListAPIController {
    func addRoutes(to router: RecordingRouter<APIRouterBuilder>) {
        router.route(.get, "/listapi", list)
        router.route(.post, "/listapi", list)
    }

    @Sendable nonisolated(nonsending) func list(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try context.requireEnvironment()
        var schemas: JSONObject = [:]
        for schema in environment.datastore.registry.all() {
            var fields = JSONObject(schema.fields.mapValues { JSONValue.string($0.name) })
            // The system fields every object carries (§4.1).
            fields[schema.primaryKey] = .string(FieldType.string.name)
            fields[SchemaDefinition.createdDate] = .string(FieldType.integer.name)
            fields[SchemaDefinition.lastModifiedDate] = .string(FieldType.integer.name)
            schemas[schema.name] = .object(fields)
        }
        let methods = environment.settings.customCode.map { JSONValue.string($0.name) }
        return JSONResponse.make(["schemas": .object(schemas), "methods": .array(methods)])
    }
}
