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
        var targets = ExpansionTargets(registry: registry)
        let topRelations = targets.relations(of: schema)
        var frontier: [(relations: [Relation], object: JSONObject)] = objects.map { (topRelations, $0) }
        for _ in 0..<depth {
            var wanted: [Int: [String]] = [:]
            for (relations, object) in frontier {
                for relation in relations {
                    Self.forEachId(in: object[relation.field]) { id in
                        if Self.request(&targets.all[relation.target].objects[id]) {
                            wanted[relation.target, default: []].append(id)
                        }
                    }
                }
            }
            guard !wanted.isEmpty else { break }
            var next: [(relations: [Relation], object: JSONObject)] = []
            for (target, ids) in wanted.sorted(by: { targets.all[$0.key].name < targets.all[$1.key].name }) {
                // A target schema that was never created holds no objects: its ids are dropped.
                guard let targetSchema = targets.definition(of: target) else { continue }
                if targets.all[target].visibleRows == nil { targets.all[target].visibleRows = .some(try await visibleRows(targetSchema, reader)) }
                let rows = targets.all[target].visibleRows ?? nil
                if rows == .nothing { continue }
                let relations = targets.relations(of: targetSchema)
                targets.all[target].relations = relations
                for object in try await reader.fetchObjects(targetSchema, ids: ids, admitting: rows) {
                    guard let id = object[targetSchema.primaryKey]?.stringValue, let visible = admit(targetSchema, object) else { continue }
                    targets.all[target].objects[id] = ExpansionTargets.Entry(object: visible)
                    next.append((relations, visible))
                }
            }
            frontier = next
        }
        return objects.map { Self.assemble($0, relations: topRelations, depth: depth, targets: &targets) }
    }

    private static func assemble(_ object: JSONObject, relations: [Relation], depth: Int, targets: inout ExpansionTargets) -> JSONObject {
        guard depth > 0 else { return object }
        var result = object
        for relation in relations {
            guard let value = object[relation.field] else { continue }
            func resolve(_ id: String) -> JSONValue? {
                guard let index = targets.all[relation.target].objects.index(forKey: id) else { return nil }
                // Read in place: a copy of the whole record per relation cost an expanded page 15%.
                let entry = targets.all[relation.target].objects.values[index]
                guard let related = entry.object else { return nil }
                // Unchanged, and so the same storage wherever it occurs.
                guard depth > 1 else { return .object(related) }
                if let assembled = entry.assembled, assembled.depth == depth - 1 { return .object(assembled.object) }
                let assembled = assemble(related, relations: targets.all[relation.target].relations, depth: depth - 1, targets: &targets)
                // Kept through the entry's index, with no second look-up: no entry is added or
                // removed while objects are assembled, so the index stays valid.
                targets.all[relation.target].objects.values[index].assembled = (depth - 1, assembled)
                return .object(assembled)
            }
            if relation.toMany {
                var related: [JSONValue] = []
                Self.forEachId(in: value) { id in
                    if let object = resolve(id) { related.append(object) }
                }
                result[relation.field] = .array(related)
            } else {
                result[relation.field] = Self.firstId(in: value).flatMap(resolve)
            }
        }
        return result
    }

    /// Marks an id as asked for, through its entry in `Target.objects` (one lookup); true the
    /// first time.
    private static func request(_ entry: inout ExpansionTargets.Entry?) -> Bool {
        guard entry == nil else { return false }
        entry = ExpansionTargets.Entry(object: nil)
        return true
    }

    /// The ids a relation value holds: one string, or an array of strings.
    static func ids(in value: JSONValue?) -> [String] {
        var ids: [String] = []
        forEachId(in: value) { ids.append($0) }
        return ids
    }

    /// `ids(in:)` one by one, with no array made: expansion walks every relation of every
    /// object it loads, twice.
    private static func forEachId(in value: JSONValue?, _ body: (String) -> Void) {
        switch value {
        case .string(let id)?:
            body(id)
        case .array(let elements)?:
            for case .string(let id) in elements {
                body(id)
            }
        default:
            break
        }
    }

    /// The first of `ids(in:)`.
    private static func firstId(in value: JSONValue?) -> String? {
        switch value {
        case .string(let id)?:
            return id
        case .array(let elements)?:
            for case .string(let id) in elements {
                return id
            }
            return nil
        default:
            return nil
        }
    }
}

/// A relation field, its target named by its index in `ExpansionTargets`.
private struct Relation {
    let field: String
    let target: Int
    let toMany: Bool
}

/// The schemas one expansion loads objects of, numbered as they are met (`all`), with what it
/// knows of each. Numbers rather than names find a target, because one is found for every id of
/// every related object: hashing strings was 9% of an expanded page's CPU samples, more than
/// half of it here, for the target's name at least as often as for the id (issue 19).
private struct ExpansionTargets {
    /// An id asked for: its object once loaded and admitted (nil before, and for an id that did
    /// not resolve), and the object last assembled from it.
    struct Entry {
        var object: JSONObject?
        /// The object with its relations expanded `depth` levels, kept so that every occurrence
        /// at that depth shares one storage: assembled once, and written once
        /// (`JSONRepeatedObjects`). The benchmark's page of 20 holds 100 tags, 48 distinct
        /// (issue 19). One depth only: an object is nearly always met at one depth.
        var assembled: (depth: Int, object: JSONObject)?
    }

    struct Target {
        let name: String
        /// Read from the registry once per expansion (its lock, taken for every related object,
        /// was contended); `.some(nil)` for a schema that was never created, which a schema
        /// created while the expansion runs does not change.
        var definition: SchemaDefinition??
        /// The target's own relations, once objects of it are loaded.
        var relations: [Relation] = []
        /// Every id asked for, with what is known of it. One table rather than a set of ids
        /// asked for beside a table of objects: growing both had cost an expanded page 2%
        /// (issue 19).
        var objects: [String: Entry] = [:]
        /// The rows the caller may read (schema permissions), once asked.
        var visibleRows: RowFilter??
    }

    let registry: SchemaRegistry
    var all: [Target] = []
    private var numbers: [String: Int] = [:]
    /// Relations by schema name, computed once per schema: the expanded objects' own schema
    /// first, as the caller passed it, then each target's definition from the registry.
    private var relationsBySchema: [String: [Relation]] = [:]

    init(registry: SchemaRegistry) {
        self.registry = registry
    }

    mutating func relations(of schema: SchemaDefinition) -> [Relation] {
        if let known = relationsBySchema[schema.name] { return known }
        var relations: [Relation] = []
        for (field, type) in schema.fields {
            guard case .relation(let target, let toMany) = type else { continue }
            relations.append(Relation(field: field, target: number(of: target), toMany: toMany))
        }
        relationsBySchema[schema.name] = relations
        return relations
    }

    mutating func definition(of target: Int) -> SchemaDefinition? {
        if let known = all[target].definition { return known }
        let definition = registry.definition(named: all[target].name)
        all[target].definition = .some(definition)
        return definition
    }

    private mutating func number(of target: String) -> Int {
        if let number = numbers[target] { return number }
        numbers[target] = all.count
        all.append(Target(name: target))
        return all.count - 1
    }
}
