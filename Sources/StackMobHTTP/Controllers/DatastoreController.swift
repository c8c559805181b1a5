import Hummingbird
import StackMobCore

/// Object CRUD (PROTOCOL §4): decodes the request, calls the environment's `Datastore`, encodes
/// the answer.
struct DatastoreController {
    let maxBodyBytes: Int

    func addRoutes(to router: Router<StackMobRequestContext>) {
        router.get("/:schema", use: list)
        router.head("/:schema", use: headList)
        router.post("/:schema", use: create)
        router.get("/:schema/:id", use: read)
        router.head("/:schema/:id", use: headObject)
        router.put("/:schema/:id", use: update)
        router.delete("/:schema/:id", use: delete)
    }

    // MARK: - Collection

    @Sendable func list(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let objects = try await context.requireEnvironment().datastore.list(in: try schema(context))
        return JSONResponse.make(.array(objects.map(JSONValue.object)))
    }

    @Sendable func headList(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        _ = try await context.requireEnvironment().datastore.list(in: try schema(context), query: ObjectQuery(limit: 1))
        return JSONResponse.empty()
    }

    /// One object → 201 with the stored object; an array → 200 `{"succeeded", "failed"}` (§4.3).
    @Sendable func create(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let datastore = try context.requireEnvironment().datastore
        let schema = try schema(context)
        let body = try await RequestBodyReader.json(request, limit: maxBodyBytes)
        switch body {
        case .object(let object):
            // X-StackMob-Relations, even empty, makes POST an upsert (D2).
            let upsert = request.headers[.stackMobRelations] != nil
            let result = try await datastore.create(object, in: schema, caller: context.caller, upsert: upsert)
            return JSONResponse.make(.object(result.object), status: result.created ? .created : .ok)
        case .array(let elements):
            let result = try await datastore.createMany(elements, in: schema, caller: context.caller)
            return JSONResponse.make([
                "succeeded": .array(result.succeeded.map(JSONValue.string)),
                "failed": .array(result.failed.map(JSONValue.string)),
            ])
        default:
            throw DatastoreError.notAnObject
        }
    }

    // MARK: - One object

    @Sendable func read(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let object = try await context.requireEnvironment().datastore.read(id: try id(context), in: try schema(context))
        return JSONResponse.make(.object(object))
    }

    @Sendable func headObject(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        _ = try await context.requireEnvironment().datastore.read(id: try id(context), in: try schema(context))
        return JSONResponse.empty()
    }

    @Sendable func update(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let datastore = try context.requireEnvironment().datastore
        let body = try await RequestBodyReader.object(request, limit: maxBodyBytes)
        let object = try await datastore.update(id: try id(context), in: try schema(context), changes: body, caller: context.caller)
        return JSONResponse.make(.object(object))
    }

    /// 200 `{}`, or the legacy text the Java-family SDKs expect (D1).
    @Sendable func delete(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        try await context.requireEnvironment().datastore.delete(id: try id(context), in: try schema(context))
        let userAgent = request.headers[.userAgent] ?? ""
        if userAgent.hasPrefix("StackMob (Java Client") || userAgent.hasPrefix("StackMob (Android") {
            return Response(
                status: .ok, headers: [.contentType: "text/plain"],
                body: .init(byteBuffer: .init(string: "Successfully deleted document")))
        }
        return JSONResponse.make(.object([:]))
    }

    // MARK: - Path parameters

    private func schema(_ context: StackMobRequestContext) throws -> String {
        try PathSegment.decode(context.parameters.get("schema") ?? "")
    }

    private func id(_ context: StackMobRequestContext) throws -> String {
        try PathSegment.decode(context.parameters.get("id") ?? "", plusAsSpace: true)
    }
}
