/// Writes an object graph inside ONE write transaction: the nested upsert of `X-StackMob-Relations`
/// (PROTOCOL §6.5) and the related-object endpoints (§6.2–6.4). Any error aborts the transaction,
/// so a graph is stored entirely or not at all.
///
/// Schema changes made earlier in the transaction reach the registry only on commit, so the
/// writer keeps the definitions it evolved and looks there first. Created and used inside one
/// `StorageEngine.write` closure only, never shared.
final class RelationGraphWriter {
    let datastore: Datastore
    let writer: any StorageWriter
    let caller: Caller
    let now: Int64
    private var evolved: [String: SchemaDefinition] = [:]

    init(datastore: Datastore, writer: any StorageWriter, caller: Caller, now: Int64) {
        self.datastore = datastore
        self.writer = writer
        self.caller = caller
        self.now = now
    }

    /// The definition as it stands in this transaction.
    func schema(named name: String) -> SchemaDefinition? {
        evolved[name] ?? datastore.registry.definition(named: name)
    }

    /// Upserts `body` (with primary key `id`) into schema `name`: first every related object the
    /// relation map points at, then the object itself holding their ids.
    func upsert(_ body: JSONObject, id: String, in name: String, relations: RelationMap) async throws -> (object: JSONObject, created: Bool) {
        let (flat, targets) = try await flatten(body, in: name, relations: relations)
        return try await write(flat, id: id, in: name, relations: targets, upsert: true)
    }

    /// Creates one object, or with `upsert` updates the existing one with the same primary key.
    /// `relations` names the fields that are relationships to which schema.
    func write(_ body: JSONObject, id: String, in name: String, relations: [String: String], upsert: Bool) async throws -> (object: JSONObject, created: Bool) {
        var schema = schema(named: name)
        // Every schema the graph touches is checked: update for an existing object, else create (§12).
        if upsert, let current = schema, let existing = try await datastore.existingForUpsert(schema, name: name, id: id, caller: caller, writer: writer) {
            let (object, updated) = try await datastore.applyUpdate(
                body, to: existing, id: id, schema: current, caller: caller, now: now, writer: writer, relations: relations)
            evolved[name] = updated
            return (object, false)
        }
        _ = try await datastore.authorize(.create, on: name, definition: schema, caller: caller, reader: writer)
        do {
            let object = try await datastore.insert(
                body, id: id, schema: &schema, name: name, caller: caller, now: now, writer: writer, relations: relations)
            evolved[name] = schema
            return (object, true)
        } catch {
            // A duplicate key fails after the table was evolved: later writes must see that.
            if let schema { evolved[name] = schema }
            throw error
        }
    }

    /// The body with every related object replaced by its id, and the relation target by field.
    private func flatten(_ body: JSONObject, in name: String, relations: RelationMap) async throws -> (JSONObject, [String: String]) {
        var flat = body
        var targets: [String: String] = [:]
        let schema = schema(named: name)
        for (field, entry) in relations.entries.sorted(by: { $0.key < $1.key }) {
            // A declared relationship keeps its target: the header cannot redirect it.
            let target = schema?.type(of: field)?.relationTarget ?? entry.target
            targets[field] = target
            switch body[field] {
            case .object(let related)?:
                flat[field] = .string(try await upsertRelated(related, in: target, relations: entry.children, path: field))
            case .array(let elements)?:
                var ids: [JSONValue] = []
                for element in elements {
                    switch element {
                    case .object(let related): ids.append(.string(try await upsertRelated(related, in: target, relations: entry.children, path: field)))
                    case .string: ids.append(element)
                    default: throw RelationError.invalidRelatedValue(field: field)
                    }
                }
                flat[field] = .array(ids)
            default:
                // An id, a null (clears the relation), or nothing: stored as sent.
                break
            }
        }
        return (flat, targets)
    }

    private func upsertRelated(_ related: JSONObject, in target: String, relations: RelationMap, path: String) async throws -> String {
        let primaryKey = schema(named: target)?.primaryKey ?? datastore.primaryKeyName(for: target)
        let id: String
        switch related[primaryKey] {
        case .string(let value)? where !value.isEmpty:
            guard !FieldValueRules.containsNUL(value) else { throw DatastoreError.containsNUL(field: "\(path).\(primaryKey)") }
            id = value
        case nil, .null?:
            guard datastore.userSchemas[target] == nil else { throw DatastoreError.missingPrimaryKey(field: "\(path).\(primaryKey)") }
            id = ObjectID.generate()
        default:
            throw DatastoreError.invalidPrimaryKey(field: "\(path).\(primaryKey)")
        }
        // Only the primary key: a reference to an object serialised elsewhere (iOS breaks cycles
        // so), not a change to it.
        if related.keys.allSatisfy({ $0 == primaryKey }) { return id }
        _ = try await upsert(related, id: id, in: target, relations: relations)
        return id
    }
}
