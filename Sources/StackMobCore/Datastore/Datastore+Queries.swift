/// Query reads and delete-by-query (PROTOCOL §4.5, §4.8, §5).
extension Datastore {
    public struct QueryResult: Sendable, Equatable {
        public let objects: [JSONObject]
        /// The number of all matching objects, when a range was asked for and the window was not
        /// empty.
        public let total: Int?
    }

    /// `GET /<schema>?…`: the matching objects in order, windowed by the range. Only objects the
    /// caller may read match: the permission's row rule is part of the statement, so pages and
    /// totals never count hidden objects (§12.2).
    public func query(in schemaName: String, _ request: QueryRequest, caller: Caller) async throws -> QueryResult {
        guard let schema = try existingSchema(schemaName) else { return QueryResult(objects: [], total: nil) }
        let filter = try request.filter.map { filter throws(QueryError) in try QueryBinder.bind(filter, to: schema) }
        for key in request.order {
            switch QueryBinder.queryType(of: key.field, in: schema) {
            case nil: throw QueryError.invalidOrderBy("schema \(schema.name) has no field \(key.field)")
            case .password?, .geopoint?, .array?, .relation(_, toMany: true)?: throw QueryError.invalidOrderBy("field \(key.field) cannot be sorted on")
            default: break
            }
        }
        try validateSelect(request.select, schema: schema, expand: request.expand)
        let objectQuery = ObjectQuery(
            filter: filter, order: request.order, offset: request.range?.start ?? 0, limit: request.range?.limit,
            countsTotal: request.range != nil)
        let loader = relationLoader(caller: caller)
        let expand = request.expand
        // The page and its related objects are read in one snapshot.
        let page = try await storage.read { reader in
            var restricted = objectQuery
            let rows = try self.authorize(.read, on: schema.name, definition: schema, caller: caller, reader: reader)
            restricted.filter = Self.restricting(objectQuery.filter, to: rows)
            let page = try reader.fetchObjects(schema, query: restricted)
            return ObjectPage(objects: try loader.expand(page.objects, schema: schema, depth: expand, reader: reader), total: page.total)
        }
        let objects = page.objects.map { object in
            present(selecting(request.select, from: object, schema: schema), schema: schema)
        }
        return QueryResult(objects: objects, total: page.total)
    }

    /// `DELETE /<schema>?…`: deletes exactly the matching objects. A query is required: an empty
    /// one would delete the whole schema.
    @discardableResult
    public func deleteMatching(in schemaName: String, filter: QueryFilter?, caller: Caller) async throws -> Int {
        guard let filter else { throw QueryError.deleteNeedsQuery }
        guard let schema = try existingSchema(schemaName) else { return 0 }
        let typed = try QueryBinder.bind(filter, to: schema)
        return try await storage.write { writer in
            // Only the objects the caller may delete are deleted; the others are left, unmentioned.
            let rows = try self.authorize(.delete, on: schema.name, definition: schema, caller: caller, reader: writer)
            return try writer.deleteObjects(schema, matching: Self.restricting(typed, to: rows) ?? typed)
        }
    }

    func validateSelect(_ fields: [String]?, schema: SchemaDefinition, expand: Int) throws(QueryError) {
        guard let fields else { return }
        try FieldSelection(fields).validate(schema: schema, depth: expand, registry: registry)
    }

    /// `X-StackMob-Select`: the selected fields and paths into expanded relations, and always the
    /// primary key (Core Data needs it).
    func selecting(_ fields: [String]?, from object: JSONObject, schema: SchemaDefinition) -> JSONObject {
        guard let fields else { return object }
        return FieldSelection(fields).apply(to: object, schema: schema, registry: registry)
    }
}
