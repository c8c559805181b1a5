/// Nested upsert and expansion (PROTOCOL §5.5, §6.5, D2, D3, D27, D36).
extension Datastore {
    /// `POST /<schema>` with `X-StackMob-Relations`: upserts the top-level object (D2) and every
    /// nested related object, in one transaction. Relations come back as ids (D3).
    public func upsertGraph(_ body: JSONObject, in schemaName: String, relations: RelationMap, caller: Caller) async throws -> WriteResult {
        let name = try Identifier.schemaName(fromRequest: schemaName)
        _ = try await existingSchema(name)
        guard passwordCount(in: body, schema: name, relations: relations) <= Self.maxPasswordsPerRequest else {
            throw DatastoreError.tooManyPasswords(limit: Self.maxPasswordsPerRequest)
        }
        let body = try await hashingNestedPasswords(in: body, schema: name, relations: relations)
        let id = try primaryKeyValue(in: body, schema: name)
        let now = clock.nowMilliseconds()
        let (result, schema) = try await retryingLostInsertRace(true) { try await self.storage.write { writer in
            let graph = RelationGraphWriter(datastore: self, writer: writer, caller: caller, now: now)
            let (object, created) = try await graph.upsert(body, id: id, in: name, relations: relations)
            let schema = graph.schema(named: name) ?? SchemaDefinition(name: name)
            // A new object holds only what the caller sent; an updated one may hold what others stored.
            let answered = created ? object : try await self.answer(object, schema: schema, caller: caller, reader: writer)
            return (WriteResult(object: answered, created: created), schema)
        } }
        return WriteResult(object: present(result.object, schema: schema), created: result.created)
    }

    /// `POST /<schema>` with an array and `X-StackMob-Relations`: each element is a nested upsert
    /// in a transaction of its own, so a failing element leaves nothing behind and does not stop
    /// the others; it is listed in `failed` (§4.3, D4).
    public func upsertGraphs(_ elements: [JSONValue], in schemaName: String, relations: RelationMap, caller: Caller) async throws -> BulkResult {
        let name = try Identifier.schemaName(fromRequest: schemaName)
        _ = try await existingSchema(name)
        var succeeded: [String] = []
        var failed: [String] = []
        for element in elements {
            let primaryKey = primaryKeyName(for: name)
            guard let object = element.objectValue else {
                failed.append(ObjectID.generate())
                continue
            }
            do {
                let result = try await upsertGraph(object, in: name, relations: relations, caller: caller)
                succeeded.append(result.object[primaryKey]?.stringValue ?? "")
            } catch let error where error is DatastoreError || error is RelationError {
                failed.append(object[primaryKey]?.stringValue ?? ObjectID.generate())
            } catch let error as AccessError {
                // A refusal answers 401/405 only while nothing is written: the SDKs refresh and
                // replay on 401, which must not write the committed elements twice.
                guard succeeded.isEmpty && failed.isEmpty else {
                    failed.append(object[primaryKey]?.stringValue ?? ObjectID.generate())
                    continue
                }
                throw error
            }
        }
        return BulkResult(succeeded: succeeded, failed: failed)
    }

    /// An object as a write returned it, with its relations expanded `depth` levels (D36).
    public func expanded(_ object: JSONObject, in schemaName: String, depth: Int, caller: Caller) async throws -> JSONObject {
        let name = try Identifier.schemaName(fromRequest: schemaName)
        guard depth > 0, let schema = registry.definition(named: name) else { return object }
        return try await expanding(depth: depth, caller: caller) { loader in
            try await storage.read { reader in
                try await loader.expand([object], schema: schema, depth: depth, reader: reader)[0]
            }
        }
    }

    /// `body`'s result with a relation loader for `caller` that expands `depth` levels: built on
    /// the caller's event loop while the expansion stays small, and again on `LoopWork.threads`,
    /// whole, once it outgrows the loop (`RelationLoader.onEventLoop`, `LoopWork`). Whether it
    /// runs on a loop is asked here, before `body` begins a transaction: inside a SQLite one,
    /// every task prefers the connection's thread.
    func expanding<T>(depth: Int, caller: Caller, _ body: (RelationLoader) async throws -> T) async throws -> T {
        // Without expansion the loader reads nothing: a read by id is not worth the check.
        guard depth > 0 else { return try await body(relationLoader(caller: caller)) }
        return try await LoopWork.offTheLoopWhenOutgrown {
            var loader = relationLoader(caller: caller)
            loader.onEventLoop = LoopWork.isOnEventLoop
            return try await body(loader)
        }
    }

    /// Every related object passes through `present` (no password hashes); related objects the
    /// caller may not read are never loaded (their ids are dropped, as if they did not resolve).
    /// What it reads is counted in the memory of the request it is made for (`AnswerMemory`),
    /// however late the loader runs.
    private func relationLoader(caller: Caller) -> RelationLoader {
        RelationLoader(
            registry: registry, admit: { schema in self.presenter(for: schema) },
            visibleRows: { schema, reader in try await self.readFilter(for: schema, caller: caller, reader: reader) },
            byteLimit: expansionByteLimit, memory: AnswerMemoryScope.current)
    }

    /// The passwords a graph would have hashed, counted before any is: the same walk as
    /// `hashingNestedPasswords`.
    private func passwordCount(in body: JSONObject, schema name: String, relations: RelationMap) -> Int {
        var count = userSchemas[name].map { body[$0.passwordField]?.stringValue != nil ? 1 : 0 } ?? 0
        for (field, entry) in relations.entries {
            let target = registry.definition(named: name)?.type(of: field)?.relationTarget ?? entry.target
            switch body[field] {
            case .object(let related)?:
                count += passwordCount(in: related, schema: target, relations: entry.children)
            case .array(let elements)?:
                for case .object(let related) in elements {
                    count += passwordCount(in: related, schema: target, relations: entry.children)
                }
            default:
                break
            }
        }
        return count
    }

    /// Hashes passwords of nested user objects before the transaction: hashing is slow on purpose
    /// and must not hold the single writer.
    private func hashingNestedPasswords(in body: JSONObject, schema name: String, relations: RelationMap) async throws -> JSONObject {
        var hashed = try await hashingPasswords(in: body, schema: name)
        for (field, entry) in relations.entries {
            let target = registry.definition(named: name)?.type(of: field)?.relationTarget ?? entry.target
            switch hashed[field] {
            case .object(let related)?:
                hashed[field] = .object(try await hashingNestedPasswords(in: related, schema: target, relations: entry.children))
            case .array(let elements)?:
                var nested: [JSONValue] = []
                for element in elements {
                    guard case .object(let related) = element else {
                        nested.append(element)
                        continue
                    }
                    nested.append(.object(try await hashingNestedPasswords(in: related, schema: target, relations: entry.children)))
                }
                hashed[field] = .array(nested)
            default:
                break
            }
        }
        return hashed
    }
}
