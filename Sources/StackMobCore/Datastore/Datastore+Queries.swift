/// Query reads and delete-by-query (PROTOCOL §4.5, §4.8, §5).
extension Datastore {
    public struct QueryResult: Sendable, Equatable {
        public let objects: [JSONObject]
        /// The number of all matching objects, when a range was asked for and the window was not
        /// empty.
        public let total: Int?
    }

    /// `GET /<schema>?…`: the matching objects in order, windowed by the range.
    public func query(in schemaName: String, _ request: QueryRequest) async throws -> QueryResult {
        guard let schema = try existingSchema(schemaName) else { return QueryResult(objects: [], total: nil) }
        let filter = try request.filter.map { filter throws(QueryError) in try QueryBinder.bind(filter, to: schema) }
        for key in request.order {
            switch QueryBinder.queryType(of: key.field, in: schema) {
            case nil: throw QueryError.invalidOrderBy("schema \(schema.name) has no field \(key.field)")
            case .password?, .geopoint?, .array?: throw QueryError.invalidOrderBy("field \(key.field) cannot be sorted on")
            default: break
            }
        }
        try validateSelect(request.select, schema: schema)
        let objectQuery = ObjectQuery(
            filter: filter, order: request.order, offset: request.range?.start ?? 0, limit: request.range?.limit,
            countsTotal: request.range != nil)
        let page = try await storage.read { try $0.fetchObjects(schema, query: objectQuery) }
        let objects = page.objects.map { object in
            present(selecting(request.select, from: object, schema: schema), schema: schema)
        }
        return QueryResult(objects: objects, total: page.total)
    }

    /// `DELETE /<schema>?…`: deletes exactly the matching objects. A query is required: an empty
    /// one would delete the whole schema.
    @discardableResult
    public func deleteMatching(in schemaName: String, filter: QueryFilter?) async throws -> Int {
        guard let filter else { throw QueryError.deleteNeedsQuery }
        guard let schema = try existingSchema(schemaName) else { return 0 }
        let typed = try QueryBinder.bind(filter, to: schema)
        return try await storage.write { try $0.deleteObjects(schema, matching: typed) }
    }

    func validateSelect(_ fields: [String]?, schema: SchemaDefinition) throws(QueryError) {
        for field in fields ?? [] where QueryBinder.queryType(of: field, in: schema) == nil {
            throw QueryError.invalidSelect("schema \(schema.name) has no field \(field)")
        }
    }

    /// `X-StackMob-Select`: the selected fields, and always the primary key (Core Data needs it).
    func selecting(_ fields: [String]?, from object: JSONObject, schema: SchemaDefinition) -> JSONObject {
        guard let fields else { return object }
        var selected = JSONObject(minimumCapacity: fields.count + 1)
        selected[schema.primaryKey] = object[schema.primaryKey]
        for field in fields {
            selected[field] = object[field]
        }
        return selected
    }
}
