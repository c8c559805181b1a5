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
        try await authorizeVerb(.read, on: schemaName, caller: caller)
        guard let committed = try committedSchema(schemaName) else { throw DatastoreError.unknownName(schemaName) }
        let (schema, filter) = try await bound(request.filter, to: committed)
        for key in request.order {
            switch QueryBinder.queryType(of: key.field, in: schema) {
            case nil: throw QueryError.unknownField(field: key.field, schema: schema.name)
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
        let readPage: @Sendable (any StorageReader) async throws -> ObjectPage = { reader in
            var restricted = objectQuery
            let rows = try await self.authorize(.read, on: schema.name, definition: schema, caller: caller, reader: reader)
            restricted.filter = Self.restricting(objectQuery.filter, to: rows)
            var page = try await reader.fetchObjects(schema, query: restricted)
            // In place: the page's objects are held once, and expanded without copies.
            try await loader.expand(&page.objects, schema: schema, depth: expand, reader: reader)
            return page
        }
        // Without expansion, the page and its total are usually one statement.
        let page = try await expand == 0 ? storage.readOneStatement(readPage) : storage.read(readPage)
        let present = presenter(for: schema)
        let objects = page.objects.map { object in present(selecting(request.select, from: object, schema: schema)) }
        return QueryResult(objects: objects, total: page.total)
    }

    /// `DELETE /<schema>?…`: deletes exactly the matching objects. A query is required: an empty
    /// one would delete the whole schema. A schema that does not exist is not found first, as
    /// every other request on it is.
    ///
    /// Returns each deleted object's primary key and binary fields, whose files the caller
    /// removes once the delete has committed (§7); nothing for a schema without binary fields.
    @discardableResult
    public func deleteMatching(in schemaName: String, filter: QueryFilter?, caller: Caller) async throws -> [JSONObject] {
        guard let filter else {
            guard try committedSchema(schemaName) != nil else { throw DatastoreError.unknownName(schemaName) }
            throw QueryError.deleteNeedsQuery
        }
        try await authorizeVerb(.delete, on: schemaName, caller: caller)
        guard let committed = try committedSchema(schemaName) else { throw DatastoreError.unknownName(schemaName) }
        let (schema, typedFilter) = try await bound(filter, to: committed)
        guard let typed = typedFilter else { throw QueryError.deleteNeedsQuery }
        let binaryFields = schema.fields.filter { $0.value == .binary }.map(\.key).sorted()
        let isUserSchema = userSchemas[schema.name] != nil
        // The primary keys come back when something must follow the delete: files, or tokens.
        let returning = binaryFields.isEmpty && !isUserSchema ? nil : binaryFields
        let now = clock.nowMilliseconds()
        return try await storage.write { writer in
            // Only the objects the caller may delete are deleted; the others are left, unmentioned.
            let rows = try await self.authorize(.delete, on: schema.name, definition: schema, caller: caller, reader: writer)
            let deleted = try await writer.deleteObjects(schema, matching: Self.restricting(typed, to: rows) ?? typed, returning: returning)
            if isUserSchema {
                for id in deleted.compactMap({ $0[schema.primaryKey]?.stringValue }) {
                    try await self.forgetUser(id, userSchema: schema.name, now: now, writer: writer)
                }
            }
            return binaryFields.isEmpty ? [] : deleted
        }
    }

    /// `filter` typed against `schema`. A field the registry lacks may have been created a
    /// moment ago through another instance: on a shared engine the database is asked before the
    /// request is refused, and the schema as it now stands is returned with the filter.
    func bound(_ filter: QueryFilter?, to schema: SchemaDefinition) async throws -> (SchemaDefinition, TypedFilter?) {
        guard let filter else { return (schema, nil) }
        do {
            return (schema, try QueryBinder.bind(filter, to: schema))
        } catch {
            guard case .unknownField = error, let current = try await currentDefinition(of: schema) else { throw error }
            return (current, try QueryBinder.bind(filter, to: current))
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
