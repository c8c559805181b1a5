/// Binary fields around writes that may touch several objects: bulk creates (§4.3) and the
/// related objects of a nested upsert (§6.5), as well as a plain create or update.
///
/// After the write, whether it committed, failed as a whole or failed for some elements only,
/// `finish` asks the database which files each object now references and removes the others:
/// the stored objects are the truth, so no failure path needs its own clean-up.
extension BinaryFields {
    /// Stores the files of one top-level object, and of the related objects `relations` names
    /// inside it; returns the body with their URLs. `id` is nil on create: the key is then the
    /// body's own or a generated one, written into the body.
    ///
    /// Nothing is stored for an object the caller may not write (§12). With `replacing` false
    /// an existing object is refused as a duplicate before any file is stored, so its files
    /// are never touched.
    public func upload(
        graph body: JSONObject, schema: String, id: String?, relations: RelationMap?, fieldTypes: String?, replacing: Bool,
        caller: Caller, into batch: inout FileBatch
    ) async throws -> JSONObject {
        var body = body
        var objectID = id ?? ""
        if id == nil {
            (body, objectID) = try datastore.assigningPrimaryKey(body, in: schema)
        }
        return try await upload(
            object: body, id: objectID, schema: schema, relations: relations, fieldTypes: fieldTypes, replacing: replacing, caller: caller,
            into: &batch)
    }

    /// After the write (committed or not): removes every file of the batch's objects, new or
    /// previous, that the stored object does not reference.
    public func finish(_ batch: FileBatch) async {
        for entry in batch.entries {
            let stored: JSONObject?
            do {
                stored = try await datastore.read(id: entry.id, in: entry.schema, caller: .privateKey)
            } catch DatastoreError.objectNotFound {
                stored = nil
            } catch {
                // Unknown state: keeping an orphan file is better than deleting a live one.
                continue
            }
            let live = Set(keys(in: stored, schema: entry.schema, id: entry.id).values)
            let candidates = entry.upload.stored + keys(in: entry.previous, schema: entry.schema, id: entry.id).values
            await remove(candidates.filter { !live.contains($0) })
        }
    }

    private func upload(
        object body: JSONObject, id: String, schema: String, relations: RelationMap?, fieldTypes: String?, replacing: Bool,
        caller: Caller, into batch: inout FileBatch
    ) async throws -> JSONObject {
        var body = body
        if concerns(body, schema: schema, fieldTypes: fieldTypes) {
            try await datastore.checkWriteAccess(id: id, in: schema, replacing: replacing, caller: caller)
            // Internal: the caller's own access was checked just above.
            let previous = try? await datastore.read(id: id, in: schema, caller: .privateKey)
            if previous != nil && !replacing {
                throw DatastoreError.duplicateKey(schema: try Identifier.schemaName(fromRequest: schema), id: id)
            }
            let upload = try await upload(body, schema: schema, id: id, fieldTypes: fieldTypes, previous: previous)
            batch.append(FileBatch.Entry(schema: schema, id: id, upload: upload, previous: previous))
            body = upload.body
        }
        guard let relations else { return body }
        let definition = (try? Identifier.schemaName(fromRequest: schema)).flatMap { datastore.registry.definition(named: $0) }
        for (field, entry) in relations.entries.sorted(by: { $0.key < $1.key }) {
            // A declared relationship keeps its own target, as the graph writer does.
            var target = entry.target
            if case .relation(let declared, _)? = definition?.type(of: field) { target = declared }
            switch body[field] {
            case .object(let nested)?:
                body[field] = .object(try await upload(nested: nested, schema: target, relations: entry.children, caller: caller, into: &batch))
            case .array(let elements)?:
                var uploaded: [JSONValue] = []
                for element in elements {
                    guard case .object(let nested) = element else {
                        uploaded.append(element)
                        continue
                    }
                    uploaded.append(.object(try await upload(nested: nested, schema: target, relations: entry.children, caller: caller, into: &batch)))
                }
                body[field] = .array(uploaded)
            default:
                continue
            }
        }
        return body
    }

    /// A related object is created or updated by the upsert, so it always replaces. Only an
    /// object that carries files (or whose own related objects may) gets its key here; the
    /// graph writer assigns the others.
    private func upload(
        nested: JSONObject, schema: String, relations: RelationMap, caller: Caller, into batch: inout FileBatch
    ) async throws -> JSONObject {
        guard concerns(nested, schema: schema, fieldTypes: nil) || !relations.isEmpty else { return nested }
        let (assigned, id) = try datastore.assigningPrimaryKey(nested, in: schema)
        let body = try await upload(
            object: assigned, id: id, schema: schema, relations: relations, fieldTypes: nil, replacing: true, caller: caller, into: &batch)
        return body == assigned ? nested : body
    }
}
