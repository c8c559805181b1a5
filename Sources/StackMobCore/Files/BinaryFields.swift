/// Stores the files of binary fields around an object write (PROTOCOL §7, D32).
///
/// Files are stored before the write, since the write stores their URLs; a failed write
/// removes them again. Files an object no longer references are removed only after the write
/// committed, and a new file never takes the path of the file it replaces, so a failed write
/// never loses or alters the previous file.
public struct BinaryFields: Sendable {
    public let store: any FileStore
    public let datastore: Datastore
    public let environment: EnvironmentKind
    public let maxBytes: Int
    /// The environment's files base URL, without a trailing slash: URLs are
    /// `<baseURL>/<schema>/<id>/<field>/<filename>` (D32).
    public let baseURL: String

    public init(store: any FileStore, datastore: Datastore, environment: EnvironmentKind, maxBytes: Int, baseURL: String) {
        self.store = store
        self.datastore = datastore
        self.environment = environment
        self.maxBytes = maxBytes
        self.baseURL = baseURL
    }

    public struct Upload: Sendable {
        /// The body with each uploaded envelope replaced by its file's URL.
        public var body: JSONObject
        public let stored: [FileKey]
    }

    /// Whether a write of `body` may add, replace or drop files: it carries an envelope, or it
    /// touches a binary field. Other writes skip the file handling entirely.
    public func concerns(_ body: JSONObject, schema schemaName: String, fieldTypes: String?) -> Bool {
        let definition = (try? Identifier.schemaName(fromRequest: schemaName)).flatMap { datastore.registry.definition(named: $0) }
        let declared = Self.declaredBinaryFields(fieldTypes)
        return body.contains { field, value in
            if definition?.type(of: field) == .binary || declared.contains(field) { return true }
            if case .string(let text) = value { return BinaryEnvelope.looksLikeEnvelope(text) }
            return false
        }
    }

    /// The fields `X-StackMob-FieldTypes` declares binary (`pic=binary`, §6.6).
    static func declaredBinaryFields(_ fieldTypes: String?) -> Set<String> {
        Set((fieldTypes.map(FieldTypesHeader.parse) ?? []).filter { $0.type == "binary" }.map(\.path))
    }

    /// Declares new binary fields, stores the files of `body`'s envelopes and returns the body
    /// with their URLs. `fieldTypes` is the `X-StackMob-FieldTypes` header (§6.6); `previous`
    /// is the stored object the write will change, if any.
    public func upload(_ body: JSONObject, schema schemaName: String, id: String, fieldTypes: String?, previous: JSONObject?) async throws -> Upload {
        // Decoding and writing a file takes milliseconds per megabyte: on Swift's shared pool,
        // not on the event loop of the connection, whose other connections would wait meanwhile.
        try await withTaskExecutorPreference(globalConcurrentExecutor) {
            try await storeFiles(body, schema: schemaName, id: id, fieldTypes: fieldTypes, previous: previous)
        }
    }

    private func storeFiles(_ body: JSONObject, schema schemaName: String, id: String, fieldTypes: String?, previous: JSONObject?) async throws -> Upload {
        let name = try Identifier.schemaName(fromRequest: schemaName)
        let declared = Self.declaredBinaryFields(fieldTypes)
        let definition = datastore.registry.definition(named: name)
        var newFields: [String: FieldType] = [:]
        var envelopes: [(field: String, envelope: BinaryEnvelope)] = []
        for (field, value) in body.sorted(by: { $0.key < $1.key }) {
            guard case .string(let text) = value, Identifier.isValidFieldName(field) else { continue }
            let isEnvelope = BinaryEnvelope.looksLikeEnvelope(text)
            switch definition?.type(of: field) {
            case .binary?:
                break
            case nil where datastore.inferenceEnabled && (isEnvelope || declared.contains(field)):
                newFields[field] = .binary
            default:
                // Another type: the text is stored as it is (or refused by the type check).
                continue
            }
            guard isEnvelope else { continue }
            let envelope = try BinaryEnvelope.parse(text, field: field)
            guard envelope.bytes.count <= maxBytes else { throw BinaryFieldError.tooLarge(field: field, limit: maxBytes) }
            envelopes.append((field, envelope))
        }
        if !newFields.isEmpty {
            try await datastore.declareFields(newFields, in: name)
        }
        var result = body
        var stored: [FileKey] = []
        let current = keys(in: previous, schema: name, id: id)
        do {
            for (field, envelope) in envelopes {
                var key = FileKey(environment: environment, schema: name, id: id, field: field, filename: envelope.filename)
                if key == current[field] {
                    // The same name again gets a new path: the old file stays intact until the
                    // write commits, and caches keyed by URL never serve the old bytes.
                    key = key.alternate
                }
                try await store.put(envelope.bytes, key: key, contentType: envelope.contentType)
                stored.append(key)
                result[field] = .string(baseURL + "/" + key.urlPath)
            }
        } catch {
            await remove(stored)
            throw error
        }
        return Upload(body: result, stored: stored)
    }

    /// After a committed delete: removes the files of the deleted objects, each given as it
    /// was stored (at least its primary key and binary fields).
    public func removeFiles(ofDeleted objects: [JSONObject], schema schemaName: String) async {
        guard let name = try? Identifier.schemaName(fromRequest: schemaName), let definition = datastore.registry.definition(named: name) else { return }
        for object in objects {
            guard let id = object[definition.primaryKey]?.stringValue else { continue }
            await remove(Array(keys(in: object, schema: name, id: id).values))
        }
    }

    /// The files of an object's binary fields that this server stored for exactly this object
    /// and field: a URL written by hand never names another object's file.
    func keys(in object: JSONObject?, schema schemaName: String, id: String) -> [String: FileKey] {
        guard let object, let name = try? Identifier.schemaName(fromRequest: schemaName),
            let definition = datastore.registry.definition(named: name)
        else { return [:] }
        var keys: [String: FileKey] = [:]
        for (field, type) in definition.fields where type == .binary {
            guard let url = object[field]?.stringValue, let key = FileKey(url: url, environment: environment),
                key.schema == name, key.id == id, key.field == field
            else { continue }
            keys[field] = key
        }
        return keys
    }

    func remove(_ keys: [FileKey]) async {
        // A file that cannot be removed is an orphan, not a failed request: the write is done.
        for key in keys {
            try? await store.delete(key)
        }
    }
}
