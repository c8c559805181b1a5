import Hummingbird
import StackMobCore

/// Object CRUD (PROTOCOL §4): decodes the request, calls the environment's `Datastore`, encodes
/// the answer.
struct DatastoreController {
    let maxBodyBytes: Int
    /// `limits.max_expanded_response_bytes`.
    var maxExpandedResponseBytes = StackMobConfiguration().maxExpandedResponseBytes
    /// Binary fields (§7); nil stores envelopes as plain strings.
    var fileStore: (any FileStore)? = nil
    var files = FileSettings()
    /// Where the URLs of stored files point; set with `fileStore`.
    var fileOrigin: StoredFileOrigin? = nil

    func addRoutes(to router: RecordingRouter<APIRouterBuilder>) {
        router.route(.get, "/:schema", query)
        router.route(.head, "/:schema", headQuery)
        router.route(.post, "/:schema", create)
        router.route(.delete, "/:schema", deleteMatching)
        router.route(.get, "/:schema/:id", read)
        router.route(.head, "/:schema/:id", headObject)
        router.route(.put, "/:schema/:id", update)
        router.route(.put, "/:schema", updateNamedInBody)
        router.route(.delete, "/:schema/:id", delete)
    }

    // MARK: - Collection

    /// `GET /<schema>?…` (§5). With a `Range` that returns a strict subset of the matches: 206 and
    /// `Content-Range: objects <start>-<last>/<total>` (D17); a window past the end: 200 `[]`.
    /// The objects are read and written a batch at a time (`JSONArrayResponse`).
    @Sendable nonisolated(nonsending) func query(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let queryRequest = try Self.queryRequest(request)
        let answer = try await context.requireEnvironment().datastore.queryInBatches(in: try schema(context), queryRequest, caller: context.caller)
        let (status, headers) = Self.window(of: answer, asked: queryRequest)
        return try await JSONArrayResponse.make(
            answer, status: status, headers: headers, expandedBy: queryRequest.expand, limit: maxExpandedResponseBytes, notes: context.notes)
    }

    /// The status and `Content-Range` of a page: 206 with the range when the page is a strict
    /// subset of the matches (D17).
    private static func window(of answer: Datastore.QueryBatches, asked request: QueryRequest) -> (HTTPResponse.Status, HTTPFields) {
        let count = answer.first.count + (answer.rest?.count ?? 0)
        guard let range = request.range, let total = answer.total, count > 0, let last = range.lastIndex(returning: count) else { return (.ok, [:]) }
        return (count < total ? .partialContent : .ok, [.contentRange: "objects \(range.start)-\(last)/\(total)"])
    }

    /// `HEAD /<schema>?…`: the status and `Content-Range` the GET would answer, without a body,
    /// and so without the expansion, the objects after the first batch and the text of any: a
    /// HEAD costs the query and the keys of the rest.
    @Sendable nonisolated(nonsending) func headQuery(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        var queryRequest = try Self.queryRequest(request)
        queryRequest.expand = 0
        let answer = try await context.requireEnvironment().datastore.queryInBatches(in: try schema(context), queryRequest, caller: context.caller)
        let (status, headers) = Self.window(of: answer, asked: queryRequest)
        var head = JSONResponse.empty(status)
        head.headers[.contentRange] = headers[.contentRange]
        return head
    }

    /// `DELETE /<schema>?…` (§4.8): 200 `{}`.
    @Sendable nonisolated(nonsending) func deleteMatching(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let filter = try QueryParser.parse(QueryString.parameters(request.uri.query))
        let schema = try schema(context)
        let deleted = try await context.requireEnvironment().datastore.deleteMatching(in: schema, filter: filter, caller: context.caller)
        if !deleted.isEmpty, let binary = try binaryFields(request, context) {
            await binary.removeFiles(ofDeleted: deleted, schema: schema)
        }
        return JSONResponse.make(.object([:]))
    }

    private static func queryRequest(_ request: Request) throws -> QueryRequest {
        QueryRequest(
            filter: try QueryParser.parse(QueryString.parameters(request.uri.query)),
            order: try request.headers[.stackMobOrderBy].map { header throws(QueryError) in try QueryRequest.parseOrderBy(header) } ?? [],
            select: try request.headers[.stackMobSelect].map { header throws(QueryError) in try QueryRequest.parseSelect(header) },
            range: try request.headers[.range].map { header throws(QueryError) in try ObjectRange.parse(header) },
            expand: try ExpandDepth.of(request))
    }

    /// One object → 201 with the stored object; an array → 200 `{"succeeded", "failed"}` (§4.3).
    @Sendable nonisolated(nonsending) func create(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let datastore = try context.requireEnvironment().datastore
        let schema = try schema(context)
        let body = try await RequestBodyReader.json(request, limit: maxBodyBytes)
        switch body {
        case .object(let object):
            let expand = try ExpandDepth.of(request)
            // X-StackMob-Relations, even empty, makes POST an upsert of the whole graph (D2, §6.5).
            let relations = try request.headers[.stackMobRelations].map { header throws(RelationError) in try RelationMap.parse(header) }
            let result = try await withFiles(request, context, body: object, schema: schema, id: nil, replacing: relations != nil, relations: relations) { object in
                if let relations {
                    return try await datastore.upsertGraph(object, in: schema, relations: relations, caller: context.caller)
                }
                return try await datastore.create(object, in: schema, caller: context.caller)
            }
            // Relations are ids unless expansion was asked for (D3, D36).
            return try await WriteAnswer.make(
                result.object, in: schema, expand: expand, status: result.created ? .created : .ok, limit: maxExpandedResponseBytes,
                datastore: datastore, context: context)
        case .array(let elements):
            let relations = try request.headers[.stackMobRelations].map { header throws(RelationError) in try RelationMap.parse(header) }
            let result = try await withFiles(request, context, elements: elements, schema: schema, relations: relations) { elements in
                if let relations {
                    return try await datastore.upsertGraphs(elements, in: schema, relations: relations, caller: context.caller)
                }
                return try await datastore.createMany(elements, in: schema, caller: context.caller)
            }
            return JSONResponse.make([
                "succeeded": .array(result.succeeded.map(JSONValue.string)),
                "failed": .array(result.failed.map(JSONValue.string)),
            ])
        default:
            throw DatastoreError.notAnObject
        }
    }

    // MARK: - One object

    @Sendable nonisolated(nonsending) func read(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        // X-StackMob-Select applies to single-object reads too (§5.4).
        let select = try request.headers[.stackMobSelect].map { header throws(QueryError) in try QueryRequest.parseSelect(header) }
        let expand = try ExpandDepth.of(request)
        let object = try await context.requireEnvironment().datastore.read(
            id: try id(context), in: try schema(context), select: select, expand: expand, caller: context.caller)
        return try await JSONResponse.make(.object(object), expandedBy: expand, limit: maxExpandedResponseBytes)
    }

    @Sendable nonisolated(nonsending) func headObject(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        _ = try await context.requireEnvironment().datastore.read(id: try id(context), in: try schema(context), caller: context.caller)
        return JSONResponse.empty()
    }

    @Sendable nonisolated(nonsending) func update(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let body = try await RequestBodyReader.object(request, limit: maxBodyBytes)
        return try await update(body, id: try id(context), request, context: context)
    }

    /// `PUT /<schema>` with the primary key in the body: the first-generation API's update (the
    /// stackmob-ruby gem's), the same as `PUT /<schema>/<id>`.
    @Sendable nonisolated(nonsending) func updateNamedInBody(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let datastore = try context.requireEnvironment().datastore
        let body = try await RequestBodyReader.object(request, limit: maxBodyBytes)
        guard let definition = datastore.registry.definition(named: try Identifier.schemaName(fromRequest: try schema(context))) else {
            throw DatastoreError.objectNotFound
        }
        guard case .string(let id)? = body[definition.primaryKey], !id.isEmpty else {
            throw DatastoreError.missingPrimaryKey(field: definition.primaryKey)
        }
        return try await update(body, id: id, request, context: context)
    }

    nonisolated(nonsending) private func update(
        _ body: JSONObject, id: String, _ request: Request, context: StackMobRequestContext
    ) async throws -> Response {
        let datastore = try context.requireEnvironment().datastore
        let schemaName = try schema(context)
        let object = try await withFiles(request, context, body: body, schema: schemaName, id: id, replacing: true) { body in
            try await datastore.update(id: id, in: schemaName, changes: body, caller: context.caller)
        }
        let expand = try ExpandDepth.of(request)
        return try await WriteAnswer.make(object, in: schemaName, expand: expand, limit: maxExpandedResponseBytes, datastore: datastore, context: context)
    }

    /// 200 `{}`, or the legacy text the Java-family SDKs expect (D1).
    @Sendable nonisolated(nonsending) func delete(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let (id, schema) = (try id(context), try schema(context))
        try await deletingFiles(request, context, schema: schema, id: id) {
            try await context.requireEnvironment().datastore.delete(id: id, in: schema, caller: context.caller)
        }
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
