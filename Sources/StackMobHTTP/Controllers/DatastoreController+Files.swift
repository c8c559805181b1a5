import Hummingbird
import StackMobCore

/// Binary fields around the object writes (PROTOCOL §7): uploads before the write, clean-up
/// after it. Writes that carry no file and touch no binary field go straight to the datastore.
extension DatastoreController {
    /// Runs `write` with the body's envelopes replaced by file URLs. `id` is nil on create (the
    /// key is then taken from the body or generated); `replacing` is false for a plain create,
    /// which must not overwrite another object's files.
    func withFiles<Output>(
        _ request: Request, _ context: StackMobRequestContext, body: JSONObject, schema: String, id: String?, replacing: Bool,
        stored: (Output) -> JSONObject, write: (JSONObject) async throws -> Output
    ) async throws -> Output {
        guard let binary = try binaryFields(request, context), binary.concerns(body, schema: schema, fieldTypes: request.headers[.stackMobFieldTypes]) else {
            return try await write(body)
        }
        var body = body
        var objectID = id ?? ""
        if id == nil {
            let assigned = try binary.datastore.assigningPrimaryKey(body, in: schema)
            body = assigned.body
            objectID = assigned.id
        }
        // Server-internal: the write itself is checked against the caller's permissions.
        let previous = try? await binary.datastore.read(id: objectID, in: schema, caller: .privateKey)
        if previous != nil && !replacing {
            throw DatastoreError.duplicateKey(schema: try Identifier.schemaName(fromRequest: schema), id: objectID)
        }
        let upload = try await binary.upload(body, schema: schema, id: objectID, fieldTypes: request.headers[.stackMobFieldTypes])
        let result: Output
        do {
            result = try await write(upload.body)
        } catch {
            await binary.discard(upload, previous: previous, schema: schema, id: objectID)
            throw error
        }
        await binary.removeUnreferenced(previous: previous, current: stored(result), schema: schema, id: objectID)
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
        await binary.removeUnreferenced(previous: previous, current: nil, schema: schema, id: id)
    }

    private func binaryFields(_ request: Request, _ context: StackMobRequestContext) throws -> BinaryFields? {
        guard let fileStore else { return nil }
        let environment = try context.requireEnvironment()
        return BinaryFields(
            store: fileStore, datastore: environment.datastore, environment: environment.kind, maxBytes: files.maxBytes,
            baseURL: FileURLBase.resolve(files: files, store: fileStore, request: request))
    }
}

/// The base of file URLs (D32): the configured `files.base_url`, else the object store's own
/// URL, else this server's `/_files` as the client reached it (so a phone on the LAN, or an
/// emulator's 10.0.2.2, gets URLs it can load).
enum FileURLBase {
    static let pathPrefix = "/_files"

    static func resolve(files: FileSettings, store: any FileStore, request: Request) -> String {
        if let configured = files.baseURL { return configured.hasSuffix("/") ? String(configured.dropLast()) : configured }
        if let storeURL = store.publicBaseURL { return storeURL }
        let scheme = request.headers[.xForwardedProto]?.lowercased() == "https" ? "https" : "http"
        let host = request.head.authority ?? "localhost"
        return "\(scheme)://\(host)\(pathPrefix)"
    }
}
