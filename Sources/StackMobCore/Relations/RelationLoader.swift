/// Replaces relationship ids with the related objects, recursively (PROTOCOL §5.5, D27).
///
/// The only place related objects are loaded. A level of the object graph is loaded with ONE
/// statement per target schema, whatever the number of objects and ids, so an expanded page costs
/// a fixed number of statements. Ids that no longer resolve are dropped.
struct RelationLoader: Sendable {
    /// Expansion depth limit (PROTOCOL §5.5: the documented range is 1–3).
    static let maxDepth = 3

    let registry: SchemaRegistry
    /// The single seam through which every related object passes before it is shown: returns the
    /// object as the caller may see it, or nil to hide it (as if the id did not resolve). Access
    /// control filters related objects here.
    let admit: @Sendable (SchemaDefinition, JSONObject) -> JSONObject?
    /// The related objects of a schema the caller may read (schema permissions, PROTOCOL §12):
    /// nil for all, `.nothing` for none. Added to the statement that loads them, so hidden
    /// objects are never loaded.
    var visibleRows: @Sendable (SchemaDefinition, any StorageReader) async throws -> RowFilter? = { _, _ in nil }

    /// `objects` (all of `schema`) with their relations expanded `depth` levels deep.
    func expand(_ objects: [JSONObject], schema: SchemaDefinition, depth: Int, reader: any StorageReader) async throws -> [JSONObject] {
        let depth = min(depth, Self.maxDepth)
        guard depth > 0, !objects.isEmpty else { return objects }
        // Loaded (and admitted) objects by schema and id; ids already asked for, found or not.
        var loaded: [String: [String: JSONObject]] = [:]
        var requested: [String: Set<String>] = [:]
        var frontier: [(SchemaDefinition, JSONObject)] = objects.map { (schema, $0) }
        var rowsByTarget: [String: RowFilter?] = [:]
        // Each target's definition, read from the registry once per expansion: assembling asks
        // for it once per related object, and the registry's lock, taken hundreds of times per
        // request by every thread, was contended (issue 19).
        var definitions: [String: SchemaDefinition] = [:]
        for _ in 0..<depth {
            var wanted: [String: [String]] = [:]
            for (schema, object) in frontier {
                for (field, type) in schema.fields {
                    guard case .relation(let target, _) = type else { continue }
                    for id in Self.ids(in: object[field]) where requested[target, default: []].insert(id).inserted {
                        wanted[target, default: []].append(id)
                    }
                }
            }
            guard !wanted.isEmpty else { break }
            var next: [(SchemaDefinition, JSONObject)] = []
            for (target, ids) in wanted.sorted(by: { $0.key < $1.key }) {
                // A target schema that was never created holds no objects: its ids are dropped.
                guard let targetSchema = definitions[target] ?? registry.definition(named: target) else { continue }
                definitions[target] = targetSchema
                if rowsByTarget[target] == nil { rowsByTarget[target] = .some(try await visibleRows(targetSchema, reader)) }
                let rows = rowsByTarget[target] ?? nil
                if rows == .nothing { continue }
                for object in try await reader.fetchObjects(targetSchema, ids: ids, admitting: rows) {
                    guard let id = object[targetSchema.primaryKey]?.stringValue, let visible = admit(targetSchema, object) else { continue }
                    loaded[target, default: [:]][id] = visible
                    next.append((targetSchema, visible))
                }
            }
            frontier = next
        }
        return objects.map { assemble($0, schema: schema, depth: depth, loaded: loaded, definitions: definitions) }
    }

    /// `definitions` holds every schema `loaded` has objects of.
    private func assemble(
        _ object: JSONObject, schema: SchemaDefinition, depth: Int, loaded: [String: [String: JSONObject]], definitions: [String: SchemaDefinition]
    ) -> JSONObject {
        guard depth > 0 else { return object }
        var result = object
        for (field, type) in schema.fields {
            guard case .relation(let target, let toMany) = type, let value = object[field] else { continue }
            func resolve(_ id: String) -> JSONValue? {
                guard let related = loaded[target]?[id], let targetSchema = definitions[target] else { return nil }
                return .object(assemble(related, schema: targetSchema, depth: depth - 1, loaded: loaded, definitions: definitions))
            }
            if toMany {
                result[field] = .array(Self.ids(in: value).compactMap(resolve))
            } else {
                result[field] = Self.ids(in: value).first.flatMap(resolve)
            }
        }
        return result
    }

    /// The ids a relation value holds: one string, or an array of strings.
    static func ids(in value: JSONValue?) -> [String] {
        switch value {
        case .string(let id)?: [id]
        case .array(let elements)?: elements.compactMap(\.stringValue)
        default: []
        }
    }
}
