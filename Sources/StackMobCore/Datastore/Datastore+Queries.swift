/// Query reads and delete-by-query (PROTOCOL §4.5, §4.8, §5).
extension Datastore {
    public struct QueryResult: Sendable, Equatable {
        public let objects: [JSONObject]
        /// The number of all matching objects, when a range was asked for and the window was not
        /// empty.
        public let total: Int?
    }

    /// A query's answer as `queryInBatches` reads it: the first objects, their total, and the
    /// rest, if any, still to read.
    public struct QueryBatches: Sendable {
        public let first: [JSONObject]
        public let total: Int?
        public let rest: RemainingObjects?
    }

    /// The objects of a long answer after its first batch: their primary keys, read with the
    /// first batch in one snapshot, and a read of the objects of any run of those keys. An
    /// object deleted meanwhile is left out; one changed meanwhile is read as it now stands, if
    /// the caller may still read it.
    public struct RemainingObjects: Sendable {
        let keys: [String]
        /// The objects of a run of keys, and how many of its keys were read.
        let reader: @Sendable (ArraySlice<String>) async throws -> (objects: [JSONObject], read: Int)
        /// About what the keys take in memory, held until the answer is written: a key is a
        /// client's string of any length, and a list may have a million.
        public let keyBytes: Int

        init(keys: [String], reader: @escaping @Sendable (ArraySlice<String>) async throws -> (objects: [JSONObject], read: Int)) {
            self.keys = keys
            self.reader = reader
            // A string of up to 15 bytes is held in the array's 16; a longer one in its own
            // allocation besides, with a header of 32.
            keyBytes = keys.reduce(keys.count * MemoryLayout<String>.stride) { bytes, key in
                let length = key.utf8.count
                return length > 15 ? bytes + length + 32 : bytes
            }
        }

        /// The number of objects still to read (fewer may come: see above).
        public var count: Int { keys.count }

        /// The objects of the keys at `positions` (within 0 ..< `count`), in the answer's order,
        /// as far as `batchBytes` of stored values allow, and the position to read from next:
        /// `positions.upperBound`, or less when the objects reached those bytes first (never
        /// `positions.lowerBound`: one object at least is read).
        public func read(_ positions: Range<Int>) async throws -> (objects: [JSONObject], next: Int) {
            let (objects, read) = try await reader(keys[positions])
            return (objects, positions.lowerBound + read)
        }
    }

    /// How many objects the first read of a query holds at most: an answer of no more is read
    /// in one statement, with its total; a longer one (a list without `Range` returns every
    /// match, and a page may be as large as asked) reads the primary keys of the rest with it,
    /// and the rest is read in batches as it is written (`RemainingObjects`).
    public static let queryBatchSize = 100

    /// How many bytes of stored values one read of a query's objects holds at most (past its
    /// first object): a hundred objects may each be as large as a request body, and a selection
    /// (`X-StackMob-Select`) makes the text written far smaller than what was read. The first
    /// read stops there and leaves the rest for the batches; a batch stops there and leaves the
    /// rest of its keys for the next.
    public static let batchBytes = 4 << 20

    /// `GET /<schema>?…`: the matching objects in order, windowed by the range. Only objects the
    /// caller may read match: the permission's row rule is part of the statement, so pages and
    /// totals never count hidden objects (§12.2). Every object, read whole: for the server's own
    /// uses, whose answers are small; the API's answers come from `queryInBatches`.
    public func query(in schemaName: String, _ request: QueryRequest, caller: Caller) async throws -> QueryResult {
        let batches = try await queryInBatches(in: schemaName, request, caller: caller)
        var objects = batches.first
        if let rest = batches.rest {
            var position = 0
            while position < rest.count {
                let batch = try await rest.read(position..<min(position + Self.queryBatchSize, rest.count))
                objects += batch.objects
                position = batch.next
            }
        }
        return QueryResult(objects: objects, total: batches.total)
    }

    /// `query`, for an answer written as it is read: the first `queryBatchSize` objects, or
    /// fewer when they reach `batchBytes`, and when the window holds more, their primary
    /// keys, read in the same snapshot, for the rest to be read a batch at a time. A `near`
    /// query's later batches give their objects their distances from its point, as its statement
    /// gives the first batch's.
    public func queryInBatches(in schemaName: String, _ request: QueryRequest, caller: Caller) async throws -> QueryBatches {
        try await authorizeVerb(.read, on: schemaName, caller: caller)
        guard var committed = try await committedSchema(schemaName) else { throw DatastoreError.unknownName(schemaName) }
        // A field named only in the order or the selection, which another instance may have
        // just added (`bound` asks the same for the filter's).
        let named = request.order.map(\.field) + (request.select ?? []).map { String($0.prefix { $0 != "." }) }
        if named.contains(where: { committed.type(of: $0) == nil && !committed.isSystemField($0) }), let current = try await currentDefinition(of: committed) {
            committed = current
        }
        let (schema, filter) = try await bound(request.filter, to: committed)
        for key in request.order {
            switch QueryBinder.queryType(of: key.field, in: schema) {
            case nil: throw QueryError.unknownField(field: key.field, schema: schema.name)
            case .password?, .geopoint?, .array?, .relation(_, toMany: true)?: throw QueryError.invalidOrderBy("field \(key.field) cannot be sorted on")
            default: break
            }
        }
        try validateSelect(request.select, schema: schema, expand: request.expand)
        let window = ObjectQuery(
            filter: filter, order: request.order, offset: request.range?.start ?? 0, limit: request.range?.limit,
            countsTotal: request.range != nil)
        let batchSize = Self.queryBatchSize
        let near = filter?.nearCondition
        let inBatches = (window.limit ?? .max) > batchSize
        let expand = request.expand
        let (page, keys) = try await expanding(depth: expand, caller: caller) { loader in
            // The first batch, its related objects and the keys of the rest are read in one snapshot.
            let readFirst: @Sendable (any StorageReader) async throws -> (ObjectPage, [String]) = { reader in
                var restricted = window
                let rows = try await self.authorize(.read, on: schema.name, definition: schema, caller: caller, reader: reader)
                restricted.filter = Self.restricting(window.filter, to: rows)
                var (page, keys) = try await Self.firstBatch(of: restricted, inBatches: inBatches, schema: schema, reader: reader)
                // In place: the page's objects are held once, and expanded without copies.
                try await loader.expand(&page.objects, schema: schema, depth: expand, reader: reader)
                return (page, keys)
            }
            // Without expansion, the page and its total are usually one statement (the keys of a
            // rest are a second one, which `readOneStatement` reads in the same snapshot).
            return try await expand == 0 ? storage.readOneStatement(readFirst) : storage.read(readFirst)
        }
        let present = presenter(for: schema)
        let select = request.select
        let presented: @Sendable ([JSONObject]) -> [JSONObject] = { objects in
            objects.map { object in present(self.selecting(select, from: object, schema: schema)) }
        }
        var rest: RemainingObjects?
        if !keys.isEmpty {
            rest = RemainingObjects(keys: keys) { batch in
                let read = try await self.expanding(depth: expand, caller: caller) { loader in
                    try await self.objects(keyedBy: Array(batch), in: schema, expand: expand, caller: caller, loader: loader)
                }
                var objects = read.objects
                if let near { Self.giveDistances(from: near.origin, in: near.field, to: &objects) }
                return (presented(objects), read.read)
            }
        }
        return QueryBatches(first: presented(page.objects), total: page.total, rest: rest)
    }

    /// The first batch of `window` (all of it when it is not read in batches), and the keys of
    /// the rest when the batch stopped short of the window's end.
    private static func firstBatch(
        of window: ObjectQuery, inBatches: Bool, schema: SchemaDefinition, reader: any StorageReader
    ) async throws -> (ObjectPage, [String]) {
        var first = window
        if inBatches { first.limit = queryBatchSize }
        first.byteLimit = batchBytes
        let page = try await reader.fetchObjects(schema, query: first)
        let read = page.objects.count
        guard (inBatches && read == queryBatchSize) || page.endedAtByteLimit else { return (page, []) }
        var rest = window
        rest.offset += read
        rest.limit = window.limit.map { $0 - read }
        rest.countsTotal = false
        rest.byteLimit = nil
        return (page, rest.limit == 0 ? [] : try await reader.fetchPrimaryKeys(schema, query: rest))
    }

    /// Gives each of `objects` that has a point in `field` its distance from `origin`, as the
    /// engines give the objects of a `near` query's first read (PROTOCOL §5.8; SQLite's
    /// `sm_distance` is the same `GeoPoint.distance`). A later batch reads its objects as they
    /// now stand, so the distance is that of the point they now hold.
    private static func giveDistances(from origin: GeoPoint, in field: String, to objects: inout [JSONObject]) {
        for index in objects.indices {
            guard case .object(let point)? = objects[index][field], let lat = point["lat"]?.numberValue, let lon = point["lon"]?.numberValue
            else { continue }
            objects[index].giveDistance(origin.distance(to: GeoPoint(lat: lat, lon: lon)), toPointIn: field)
        }
    }

    /// The objects of `keys` the caller may read, in the order of `keys`, expanded, as far as
    /// `batchBytes` of stored values allow; and how many of the keys were read.
    private func objects(
        keyedBy keys: [String], in schema: SchemaDefinition, expand: Int, caller: Caller, loader: RelationLoader
    ) async throws -> (objects: [JSONObject], read: Int) {
        try await storage.read { reader in
            let rows = try await self.authorize(.read, on: schema.name, definition: schema, caller: caller, reader: reader)
            var page = try await reader.fetchObjects(schema, orderedIDs: keys, admitting: rows, byteLimit: Self.batchBytes)
            var read = keys.count
            if page.endedAtByteLimit, let last = page.objects.last?[schema.primaryKey]?.stringValue, let position = keys.firstIndex(of: last) {
                read = position + 1
            }
            try await loader.expand(&page.objects, schema: schema, depth: expand, reader: reader)
            return (page.objects, read)
        }
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
            guard try await committedSchema(schemaName) != nil else { throw DatastoreError.unknownName(schemaName) }
            throw QueryError.deleteNeedsQuery
        }
        try await authorizeVerb(.delete, on: schemaName, caller: caller)
        guard let committed = try await committedSchema(schemaName) else { throw DatastoreError.unknownName(schemaName) }
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
