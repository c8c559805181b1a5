import Foundation
import Hummingbird
import StackMobCore

/// Related objects and array fields of one object (PROTOCOL §6.2–6.4). Three-segment and longer
/// paths only, so that no route shadows `/<schema>/<constant>` endpoints such as `accessToken`.
struct RelationsController {
    let maxBodyBytes: Int
    /// `limits.max_expanded_response_bytes`.
    var maxExpandedResponseBytes = StackMobConfiguration().maxExpandedResponseBytes

    func addRoutes(to router: RecordingRouter<APIRouterBuilder>) {
        router.route(.post, "/:schema/:id/:field", createRelated)
        router.route(.put, "/:schema/:id/:field", append)
        router.route(.delete, "/:schema/:id/:field/:values", remove)
    }

    /// 200 `{"succeeded": [ids], "failed": [ids]}`; a single object counts as a one-element array (D5).
    @Sendable nonisolated(nonsending) func createRelated(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let elements: [JSONValue]
        switch try await RequestBodyReader.json(request, limit: maxBodyBytes) {
        case .array(let array): elements = array
        case .object(let object): elements = [.object(object)]
        default: throw DatastoreError.notAnObject
        }
        let result = try await context.requireEnvironment().datastore.createRelated(
            elements, parentID: try id(context), field: try field(context), in: try schema(context), caller: context.caller)
        return JSONResponse.make([
            "succeeded": .array(result.succeeded.map(JSONValue.string)),
            "failed": .array(result.failed.map(JSONValue.string)),
        ])
    }

    /// 200 with the whole parent object (expanded when asked).
    @Sendable nonisolated(nonsending) func append(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let values: [JSONValue]
        switch try await RequestBodyReader.json(request, limit: maxBodyBytes) {
        case .array(let array): values = array
        case let single: values = [single]
        }
        let datastore = try context.requireEnvironment().datastore
        let schemaName = try schema(context)
        let object = try await datastore.appendValues(values, parentID: try id(context), field: try field(context), in: schemaName, caller: context.caller)
        let expand = try ExpandDepth.of(request)
        return try await WriteAnswer.make(object, in: schemaName, expand: expand, limit: maxExpandedResponseBytes, datastore: datastore, context: context)
    }

    /// 200 `{}`. The values are split on commas after percent-decoding (D30): the Java SDK encodes
    /// the commas, the JS SDK each value.
    @Sendable nonisolated(nonsending) func remove(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let values = try PathSegment.decode(context.parameters.get("values") ?? "", plusAsSpace: true)
            .split(separator: ",").map(String.init)
        // Any value but `false` cascades; absent means no cascade (§6.4).
        let cascade = request.headers[.stackMobCascadeDelete].map { $0.trimmingSpaces().lowercased() != "false" } ?? false
        try await context.requireEnvironment().datastore.removeValues(
            values, parentID: try id(context), field: try field(context), in: try schema(context), cascade: cascade, caller: context.caller)
        return JSONResponse.make(.object([:]))
    }

    // MARK: - Path parameters

    private func schema(_ context: StackMobRequestContext) throws -> String {
        try PathSegment.decode(context.parameters.get("schema") ?? "")
    }

    private func id(_ context: StackMobRequestContext) throws -> String {
        try PathSegment.decode(context.parameters.get("id") ?? "", plusAsSpace: true)
    }

    private func field(_ context: StackMobRequestContext) throws -> String {
        try PathSegment.decode(context.parameters.get("field") ?? "")
    }
}
