/// What one expansion knows of the objects it loads (`RelationLoader`): every id asked for,
/// numbered once (its slot), and for every object whose relations it follows, the slots its
/// relation fields name.
///
/// An id is looked up by its text once, where it is first met in an object; loading, admitting and
/// assembling then go by slot. Three look-ups an id, in tables keyed by the id's text, had cost an
/// expanded page a measurable share of its instructions in hashing (docs/benchmarks.md, "Figures
/// behind design choices").
struct ExpansionGraph {
    /// A relation field, its target schema named by its number in `targets`.
    struct Relation {
        let field: String
        let target: Int
        let toMany: Bool
    }

    /// An id asked for.
    struct Entry {
        /// The schema it names, by its number in `targets`.
        let target: Int
        /// The shallowest level of the objects that named it (0: the expanded objects
        /// themselves): it decides how deep its object's own relations are followed.
        var level: Int
        /// Whether its id was handed to a statement (or dropped with its schema): no longer pending.
        var requested = false
        /// Its object once loaded and admitted: nil before, and for an id that did not resolve.
        /// Taken by `RelationLoader` when assembled, unless `atSeveralDepths`.
        var object: JSONObject?
        /// Where its relations' slots start in `links`, once its relations were followed.
        var links = ExpansionGraph.notLinked
        /// The object with its relations expanded `depth` levels, kept so that every occurrence at
        /// that depth shares one storage: assembled once, and written once (`JSONRepeatedObjects`).
        /// An expanded page names the same related objects many times (docs/benchmarks.md, "Figures
        /// behind design choices"). One depth only: an object is nearly always met at one depth.
        var assembled: (depth: Int, object: JSONObject)?
        /// Whether it may be shown at more than one depth: named from two levels, or by an
        /// object that is (`markObjectsAtSeveralDepths`). Only then must its object stay as
        /// loaded once assembled.
        var atSeveralDepths = false

        init(target: Int, level: Int) {
            self.target = target
            self.level = level
        }
    }

    /// A schema the expansion loads objects of.
    struct Target {
        let name: String
        /// Read from the registry once per expansion (its lock, taken for every related object,
        /// was contended); `.some(nil)` for a schema that was never created, which a schema
        /// created while the expansion runs does not change.
        var definition: SchemaDefinition??
        /// The target's own relations, once objects of it are loaded.
        var relations: [Relation] = []
        /// The slot of every id of this schema asked for.
        var slots: [String: Int] = [:]
        /// The ids asked for since the last load, with their slots, in the order first met.
        var pendingIds: [String] = []
        var pendingSlots: [Int] = []
        /// The rows the caller may read (schema permissions), once asked.
        var visibleRows: RowFilter??
    }

    /// `Entry.links` of an object whose relations were not followed (it was loaded at the last
    /// level): it is never assembled.
    static let notLinked = -1
    /// The count `links` holds for a relation field the object does not have.
    static let absent = -1

    let registry: SchemaRegistry
    /// The schemas met, numbered in the order met.
    private(set) var targets: [Target] = []
    /// Every id asked for, by slot.
    var entries: [Entry] = []
    /// For each object whose relations were followed, from its start: for each of its
    /// relations in order, the number of ids the field holds (or `absent`), then their slots.
    private(set) var links: [Int] = []
    private var numbers: [String: Int] = [:]
    /// Requested entries named again from a shallower level than before, not yet followed from it.
    private var lowered: [Int] = []
    /// Relations by schema name, computed once per schema: the expanded objects' own schema
    /// first, as the caller passed it, then each target's definition from the registry.
    private var relationsBySchema: [String: [Relation]] = [:]

    init(registry: SchemaRegistry) {
        self.registry = registry
    }

    /// Follows `object`'s relations: every id they hold gets a slot (a new one is pending until
    /// loaded). Returns where the object's slots start in `links`.
    ///
    /// - Parameters:
    ///   - level: the object's level: 0 for the expanded objects, 1 for their related objects…
    ///   - remaining: how many objects of its round (`RelationLoader`) are left to follow, this
    ///     one included.
    ///   - idLimit: throws `LoopWork.Outgrown` rather than take `links` past it
    ///     (`RelationLoader.onEventLoop`).
    mutating func link(_ object: JSONObject, relations: [Relation], level: Int, remaining: Int, idLimit: Int? = nil) throws -> Int {
        let start = links.count
        for relation in relations {
            guard let value = object[relation.field] else {
                links.append(Self.absent)
                continue
            }
            let ids = Self.idCount(in: value)
            if let idLimit, links.count + ids > idLimit { throw LoopWork.Outgrown() }
            makeRoom(for: ids, in: relation.target, remaining: remaining)
            let count = links.count
            links.append(0)
            RelationLoader.forEachId(in: value) { id in
                let slot = slot(of: id, in: relation.target, level: level)
                links.append(slot)
            }
            links[count] = links.count - count - 1
        }
        return start
    }

    /// Grows the tables `link` fills, when they are full, for the objects left at this level,
    /// counting on each to hold as many ids as this one: a table grown by doublings from empty
    /// rehashed or copied all it held at each (docs/benchmarks.md, "Figures behind design
    /// choices").
    private mutating func makeRoom(for ids: Int, in target: Int, remaining: Int) {
        if links.capacity - links.count <= ids {
            links.reserveCapacity(Self.grown(links.count, links.capacity, needed: ids + 1, estimated: (ids + 1) * remaining))
        }
        guard ids > 0 else { return }
        // Read in place: a copy of the table is a retain and a release.
        if targets[target].slots.capacity - targets[target].slots.count < ids {
            let (count, capacity) = (targets[target].slots.count, targets[target].slots.capacity)
            targets[target].slots.reserveCapacity(Self.grown(count, capacity, needed: ids, estimated: ids * remaining))
        }
        if entries.capacity - entries.count < ids {
            entries.reserveCapacity(Self.grown(entries.count, entries.capacity, needed: ids, estimated: ids * remaining))
        }
    }

    /// The capacity a full table grows to: room for `needed` more, and for the estimate, but
    /// never more than `estimateLimit` beyond what is needed (one object holding many ids must
    /// not reserve as many for every object after it); and at least double, so that growing
    /// stays linear however the estimate errs.
    private static func grown(_ count: Int, _ capacity: Int, needed: Int, estimated: Int) -> Int {
        Swift.max(count + needed + Swift.min(Swift.max(estimated - needed, 0), estimateLimit), 2 * capacity)
    }

    private static let estimateLimit = 1024

    private static func idCount(in value: JSONValue) -> Int {
        switch value {
        case .string: 1
        case .array(let elements): elements.count
        default: 0
        }
    }

    /// The targets with ids pending, in the order of their names: statements run in the same
    /// order whatever order the ids were met in.
    func pendingTargets() -> [Int] {
        targets.indices.filter { !targets[$0].pendingIds.isEmpty }.sorted { targets[$0].name < targets[$1].name }
    }

    /// Which of the `pending` targets to load now: those no other pending target leads to, so
    /// that a schema named from several levels (an article's author and its tags' owners) is
    /// read with one statement, once every schema that may still name it has been read. When
    /// each leads to another (a cycle, or a schema related to itself next to another), all of
    /// them: one statement each per round, as many rounds as the depth takes.
    mutating func loadOrder(_ pending: [Int]) -> [Int] {
        guard pending.count > 1 else { return pending }
        // One walk per pending target, not one per pair: a schema may name many others.
        var reachedFromOthers = Set<Int>()
        for start in pending {
            for target in reached(from: start) where target != start { reachedFromOthers.insert(target) }
        }
        let ready = pending.filter { !reachedFromOthers.contains($0) }
        return ready.isEmpty ? pending : ready
    }

    /// The targets whose ids objects of `start` can name, through one relation or more.
    private mutating func reached(from start: Int) -> Set<Int> {
        var seen = Set<Int>()
        var unvisited = [start]
        while let current = unvisited.popLast() {
            for relation in relations(ofTarget: current) {
                if seen.insert(relation.target).inserted { unvisited.append(relation.target) }
            }
        }
        return seen
    }

    /// A target's relations, from its definition: none for a schema that was never created.
    private mutating func relations(ofTarget target: Int) -> [Relation] {
        guard let definition = definition(of: target) else { return [] }
        return relations(of: definition)
    }

    /// The pending ids of `target` and their slots, which are no longer pending.
    mutating func takePending(of target: Int) -> (ids: [String], slots: [Int]) {
        defer {
            targets[target].pendingIds = []
            targets[target].pendingSlots = []
        }
        for slot in targets[target].pendingSlots {
            entries[slot].requested = true
        }
        return (targets[target].pendingIds, targets[target].pendingSlots)
    }

    /// A requested entry since named from a shallower level: its object, if it has one, must be
    /// followed again from there, further down. Loading in `loadOrder`'s order, only schemas that
    /// lead to each other (its fallback) can name an id from a shallower level once it is read.
    mutating func takeLowered() -> Int? {
        lowered.popLast()
    }

    /// The slot of a loaded object's id. `ids` are those its statement asked for, and `cursor`
    /// where the previous object was found among them: engines return objects in the order of
    /// the ids, minus those that did not resolve, so the search usually ends at once. Nothing
    /// requires that order, so an id not found after the cursor is looked up by its text.
    func slot(ofLoaded id: String, target: Int, ids: [String], slots: [Int], cursor: inout Int) -> Int? {
        while cursor < ids.count {
            let position = cursor
            cursor += 1
            if ids[position] == id { return slots[position] }
        }
        return targets[target].slots[id]
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

    mutating func setRelations(_ relations: [Relation], of target: Int) {
        targets[target].relations = relations
    }

    mutating func definition(of target: Int) -> SchemaDefinition? {
        if let known = targets[target].definition { return known }
        let definition = registry.definition(named: targets[target].name)
        targets[target].definition = .some(definition)
        return definition
    }

    mutating func visibleRows(of target: Int, _ load: () async throws -> RowFilter?) async rethrows -> RowFilter? {
        if let known = targets[target].visibleRows { return known }
        let rows = try await load()
        targets[target].visibleRows = .some(rows)
        return rows
    }

    /// The slot of `id` among `target`'s ids, given one (and made pending) the first time.
    private mutating func slot(of id: String, in target: Int, level: Int) -> Int {
        let next = entries.count
        // One look-up, through the table's entry in place.
        let slot = Self.claim(&targets[target].slots[id], next)
        if slot == next {
            entries.append(Entry(target: target, level: level))
            targets[target].pendingIds.append(id)
            targets[target].pendingSlots.append(slot)
        } else if entries[slot].level != level {
            entries[slot].atSeveralDepths = true
            if level < entries[slot].level {
                entries[slot].level = level
                if entries[slot].requested { lowered.append(slot) }
            }
        }
        return slot
    }

    /// Marks every object an object `atSeveralDepths` names, and so on down: each of its
    /// depths shows them at a depth of their own. Called once every level is linked, since an
    /// object can be named from a deeper level after its own relations were followed (a cycle).
    mutating func markObjectsAtSeveralDepths() {
        var marked = entries.indices.filter { entries[$0].atSeveralDepths }
        while let slot = marked.popLast() {
            var cursor = entries[slot].links
            guard cursor != Self.notLinked else { continue }
            for _ in targets[entries[slot].target].relations {
                let count = links[cursor]
                cursor += 1
                guard count != Self.absent else { continue }
                for position in cursor..<(cursor + count) where !entries[links[position]].atSeveralDepths {
                    entries[links[position]].atSeveralDepths = true
                    marked.append(links[position])
                }
                cursor += count
            }
        }
    }

    private static func claim(_ slot: inout Int?, _ next: Int) -> Int {
        if let slot { return slot }
        slot = next
        return next
    }

    private mutating func number(of target: String) -> Int {
        if let number = numbers[target] { return number }
        numbers[target] = targets.count
        targets.append(Target(name: target))
        return targets.count - 1
    }
}
