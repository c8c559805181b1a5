import Hummingbird
import StackMobCore

/// Binary fields around the object writes (PROTOCOL §7): uploads before the write, clean-up
/// after it. Writes that carry no file and touch no binary field go straight to the datastore.
extension DatastoreController {
    /// Runs `write` with the envelopes of `body` (and of the related objects `relations` names)
    /// replaced by file URLs. `id` is nil on create (the key is then taken from the body or
    /// generated); `replacing` is false for a plain create, which must not overwrite another
    /// object's files.
    func withFiles<Output>(
        _ request: Request, _ context: StackMobRequestContext, body: JSONObject, schema: String, id: String?, replacing: Bool,
        relations: RelationMap? = nil, write: (JSONObject) async throws -> Output
    ) async throws -> Output {
        guard let binary = try binaryFields(request, context) else { return try await write(body) }
        var batch = FileBatch()
        let uploaded = try await finishing(binary, &batch, onlyOnError: true) { batch in
            try await binary.upload(
                graph: body, schema: schema, id: id, relations: relations, fieldTypes: request.headers[.stackMobFieldTypes],
                replacing: replacing, caller: context.caller, into: &batch)
        }
        if batch.isEmpty { return try await write(body) }
        return try await finishing(binary, &batch) { _ in try await write(uploaded) }
    }

    /// A bulk create (§4.3): each element's files are stored as for one object. An element
    /// that the write then lists as failed keeps nothing: `finish` removes what no stored
    /// object references. A malformed envelope in any element refuses the whole request (400)
    /// before anything is written, as for one object.
    func withFiles(
        _ request: Request, _ context: StackMobRequestContext, elements: [JSONValue], schema: String, relations: RelationMap?,
        write: ([JSONValue]) async throws -> Datastore.BulkResult
    ) async throws -> Datastore.BulkResult {
        guard let binary = try binaryFields(request, context) else { return try await write(elements) }
        var batch = FileBatch()
        var prepared = elements
        var seen: Set<String> = []
        try await finishing(binary, &batch, onlyOnError: true) { batch in
            for (index, element) in elements.enumerated() {
                guard case .object(let object) = element else { continue }
                do {
                    let (body, id) = try binary.datastore.assigningPrimaryKey(object, in: schema)
                    // A plain bulk create refuses an id it has already created: such an element
                    // must not store a file, which would take the path of the first one's file.
                    guard seen.insert(id).inserted || relations != nil else { continue }
                    let uploaded = try await binary.upload(
                        graph: body, schema: schema, id: id, relations: relations, fieldTypes: request.headers[.stackMobFieldTypes],
                        replacing: relations != nil, caller: context.caller, into: &batch)
                    if uploaded != body { prepared[index] = .object(uploaded) }
                } catch let error where error is DatastoreError || error is AccessError {
                    // A bad key, a duplicate, or an object the caller may not write: the write
                    // refuses it the same way (listed in failed, or the whole request refused),
                    // and its envelopes are never stored.
                    continue
                }
            }
        }
        if batch.isEmpty { return try await write(elements) }
        return try await finishing(binary, &batch) { [prepared] _ in try await write(prepared) }
    }

    /// Runs `work`, then removes the batch's files that no stored object references: always, or
    /// with `onlyOnError` when `work` throws (an upload phase whose write is still to come).
    private func finishing<Output>(
        _ binary: BinaryFields, _ batch: inout FileBatch, onlyOnError: Bool = false, _ work: (inout FileBatch) async throws -> Output
    ) async throws -> Output {
        let result: Output
        do {
            result = try await work(&batch)
        } catch {
            await binary.finish(batch)
            throw error
        }
        if !onlyOnError { await binary.finish(batch) }
        return result
    }

    /// Runs a delete, then removes the object's files.
    func deletingFiles(_ request: Request, _ context: StackMobRequestContext, schema: String, id: String, delete: () async throws -> Void) async throws {
        guard let binary = try binaryFields(request, context),
            let definition = (try? Identifier.schemaName(fromRequest: schema)).flatMap({ binary.datastore.registry.definition(named: $0) }),
            definition.fields.values.contains(.binary)
        else { return try await delete() }
        // Server-internal: the delete itself is checked against the caller's permissions.
        let previous = try? await binary.datastore.read(id: id, in: schema, caller: .privateKey)
        try await delete()
        await binary.removeFiles(ofDeleted: previous.map { [$0] } ?? [], schema: schema)
    }

    func binaryFields(_ request: Request, _ context: StackMobRequestContext) throws -> BinaryFields? {
        guard let fileStore, let fileOrigin else { return nil }
        let environment = try context.requireEnvironment()
        return BinaryFields(
            store: fileStore, datastore: environment.datastore, environment: environment.kind, maxBytes: files.maxBytes,
            baseURL: fileOrigin.base(environment: environment, store: fileStore, request: request, context: context))
    }
}
