/// Replaces relationship ids with the related objects, recursively (PROTOCOL §5.5, D27).
///
/// The only place related objects are loaded. The ids asked for are loaded with ONE statement per
/// target schema and round, whatever the number of objects and ids, so an expanded page costs a
/// fixed number of statements. A schema is read once no other schema still to be read can lead
/// to it (`ExpansionGraph.loadOrder`): a schema named at two levels, such as the author of an
/// article and the owners of its tags, takes one statement, not one per level, which on
/// PostgreSQL is a round trip to the database saved. Ids that no longer resolve are dropped.
struct RelationLoader: Sendable {
    /// Expansion depth limit (PROTOCOL §5.5: the documented range is 1–3).
    static let maxDepth = 3

    let registry: SchemaRegistry
    /// The single seam through which every related object passes before it is shown: for a
    /// schema, the function that returns an object of it as the caller may see it, or nil to hide
    /// it (as if the id did not resolve). Access control filters related objects here. Asked
    /// once per statement that loads a schema's objects, then called for each object.
    let admit: @Sendable (SchemaDefinition) -> (JSONObject) -> JSONObject?
    /// The related objects of a schema the caller may read (schema permissions, PROTOCOL §12):
    /// nil for all, `.nothing` for none. Added to the statement that loads them, so hidden
    /// objects are never loaded.
    var visibleRows: @Sendable (SchemaDefinition, any StorageReader) async throws -> RowFilter? = { _, _ in nil }
    /// The most bytes of stored values one expansion loads (`limits.max_expanded_response_bytes`),
    /// nil for no limit. Each related object loaded is shown at least once, so its bytes are
    /// part of the answer the limit bounds; counted as they are read, they stop a read before it
    /// holds them all: a relation field may name a million objects, and each a million more.
    var byteLimit: Int?
    /// Where the bytes read are counted as they are read (`AnswerMemory`), nil for nowhere. Each
    /// read first takes what it may hold (`ReadAllowance`), so that requests building at once
    /// cannot each read up to `byteLimit` before any of it counts.
    var memory: (any AnswerMemory)?
    /// Set for an expansion built on an event loop (`Datastore.expanding`): it stops with
    /// `LoopWork.Outgrown` once its objects name more than `loopIds` ids or it has read more than
    /// `loopBytes`, to be built again off the loop: its work grows with what it names and reads
    /// (a relation field may name 200,000 ids), and the loop's other connections would wait for
    /// all of it (docs/architecture.md, "The event-loop rule").
    var onEventLoop = false

    /// The ids an expansion may name on an event loop: a page of twenty objects naming two
    /// hundred each.
    static let loopIds = 4_096
    /// The bytes of stored values an expansion may read on an event loop: its first step
    /// (`ReadAllowance.firstStep`), so that an expansion of one statement per schema stays there.
    static let loopBytes = 256 * 1024

    /// `objects` (all of `schema`) with their relations expanded `depth` levels deep.
    func expand(_ objects: [JSONObject], schema: SchemaDefinition, depth: Int, reader: any StorageReader) async throws -> [JSONObject] {
        var objects = objects
        try await expand(&objects, schema: schema, depth: depth, reader: reader)
        return objects
    }

    /// Expands `objects` in place: an object no one else holds gets its related objects without
    /// a copy of its members (a page's objects, when the caller hands the page's array over).
    func expand(_ objects: inout [JSONObject], schema: SchemaDefinition, depth: Int, reader: any StorageReader) async throws {
        let depth = min(depth, Self.maxDepth)
        guard depth > 0, !objects.isEmpty else { return }
        var graph = ExpansionGraph(registry: registry)
        let topRelations = graph.relations(of: schema)
        // Where each of `objects` has its slots in `graph.links`.
        var topLinks: [Int] = []
        topLinks.reserveCapacity(objects.count)
        for (position, object) in objects.enumerated() {
            topLinks.append(try link(object, relations: topRelations, level: 0, remaining: objects.count - position, in: &graph))
        }
        var allowance = ReadAllowance(limit: byteLimit, memory: memory, onEventLoop: onEventLoop)
        do {
            try await load(&graph, depth: depth, reader: reader, allowance: &allowance)
        } catch {
            // The objects read are let go with the read: a read that runs again (a snapshot
            // asked for late, a read moved off the event loop) takes them anew.
            allowance.giveBackAll()
            throw error
        }
        // Assembled in place, each object held only where it is assembled: with a second reference,
        // the first related object set copied its members (docs/benchmarks.md, "Figures behind
        // design choices").
        graph.markObjectsAtSeveralDepths()
        for (index, links) in topLinks.enumerated() {
            Self.assemble(&objects[index], relations: topRelations, links: links, depth: depth, graph: &graph)
        }
    }

    /// Loads the objects `graph` names, round by round, `depth` levels deep.
    private func load(_ graph: inout ExpansionGraph, depth: Int, reader: any StorageReader, allowance: inout ReadAllowance) async throws {
        while true {
            let pending = graph.pendingTargets()
            guard !pending.isEmpty else { break }
            var loaded: [Loaded] = []
            for target in graph.loadOrder(pending) {
                let (ids, slots) = graph.takePending(of: target)
                // A target schema that was never created holds no objects: its ids are dropped.
                guard let targetSchema = graph.definition(of: target) else { continue }
                let rows = try await graph.visibleRows(of: target) { try await visibleRows(targetSchema, reader) }
                if rows == .nothing { continue }
                let relations = graph.relations(of: targetSchema)
                graph.setRelations(relations, of: target)
                let present = admit(targetSchema)
                try await read(ids, slots: slots, of: target, schema: targetSchema, admitting: rows, reader: reader, allowance: &allowance, graph: &graph) {
                    object, slot, graph in
                    guard let visible = present(object) else { return }
                    graph.entries[slot].object = visible
                    // An id named at level n is shown at depth n + 1: its object's own relations
                    // are followed only within the depth asked.
                    if graph.entries[slot].level + 1 < depth {
                        loaded.append(Loaded(relations: relations, object: visible, slot: slot))
                    }
                }
            }
            try follow(loaded, in: &graph)
            while let slot = graph.takeLowered() {
                let entry = graph.entries[slot]
                guard let object = entry.object, entry.level + 1 < depth else { continue }
                let relations = graph.targets[entry.target].relations
                graph.entries[slot].links = try link(object, relations: relations, level: entry.level + 1, remaining: 1, in: &graph)
            }
        }
    }

    /// Reads the objects of `ids` (of `target`, at `slots`) and hands each to `found` with its
    /// slot: in one statement, or in several when a read stops at what it took ahead of the
    /// request's memory (`ReadAllowance`), each reading the ids the one before did not reach.
    private func read(
        _ ids: [String], slots: [Int], of target: Int, schema: SchemaDefinition, admitting rows: RowFilter?, reader: any StorageReader,
        allowance: inout ReadAllowance, graph: inout ExpansionGraph, found: (JSONObject, Int, inout ExpansionGraph) -> Void
    ) async throws {
        var (ids, slots) = (ids, slots)
        while !ids.isEmpty {
            let readLimit = try allowance.beforeRead()
            let page = try await reader.fetchObjects(schema, ids: ids, admitting: rows, byteLimit: readLimit)
            let stoppedEarly = try allowance.afterRead(page)
            var cursor = 0
            var returned = Set<String>()
            for object in page.objects {
                guard let id = object[schema.primaryKey]?.stringValue else { continue }
                if stoppedEarly { returned.insert(id) }
                guard let slot = graph.slot(ofLoaded: id, target: target, ids: ids, slots: slots, cursor: &cursor) else { continue }
                found(object, slot, &graph)
            }
            guard stoppedEarly else { return }
            // The read stopped at what it had taken ahead, short of the limit: the ids it did
            // not reach are read next, with more taken ahead.
            let left = ids.indices.filter { !returned.contains(ids[$0]) }
            (ids, slots) = (left.map { ids[$0] }, left.map { slots[$0] })
        }
    }

    /// What each read of an expansion may hold: what is left of `byteLimit`, and, when its
    /// request's memory is counted, only what it took of that memory ahead of the read. What it
    /// takes ahead is twice what the expansion has read so far: an expansion of less than
    /// `firstStep` takes one statement per schema, as without counting, and one of 30 MB six.
    private struct ReadAllowance {
        /// What one request takes ahead of its first read: small enough that thousands of
        /// requests may read at once, large enough for the expansions apps make. When it does
        /// not fit, the first read takes what the memory never counts (`AnswerMemory.uncounted`):
        /// a small expansion is never refused for others' large ones.
        static let firstStep = 256 * 1024

        /// What is left of `byteLimit`: nil for no limit.
        private var bytesLeft: Int?
        private let limit: Int?
        private let memory: (any AnswerMemory)?
        /// `RelationLoader.onEventLoop`: each read stops at `loopBytes`, and past them the
        /// expansion stops with `LoopWork.Outgrown`.
        private let onEventLoop: Bool
        /// What the expansion has read.
        private var read = 0
        /// What the read under way took ahead.
        private var ahead = 0
        /// What it holds of `memory`: what it read, and what the read under way took ahead.
        private var held = 0

        init(limit: Int?, memory: (any AnswerMemory)?, onEventLoop: Bool) {
            self.limit = limit
            bytesLeft = limit
            self.memory = memory
            self.onEventLoop = onEventLoop
        }

        /// The byte limit of the next read, having taken it of the memory; throws when it does
        /// not fit.
        mutating func beforeRead() throws -> Int? {
            guard let memory else { return onEventLoop ? min(bytesLeft ?? .max, RelationLoader.loopBytes) : bytesLeft }
            ahead = min(bytesLeft ?? .max, max(Self.firstStep, 2 * read))
            do {
                try memory.take(ahead)
            } catch where read == 0 && memory.uncounted < ahead {
                ahead = min(bytesLeft ?? .max, memory.uncounted)
                try memory.take(ahead)
            }
            held += ahead
            return ahead
        }

        /// Counts what `page` read. True when it stopped at what was taken ahead, with the
        /// limit not reached: its remaining ids are to be read next. Throws
        /// `expansionTooLarge` when it stopped at the limit.
        mutating func afterRead(_ page: ObjectPage) throws -> Bool {
            if let memory {
                // A read keeps the row that passes its limit.
                if page.storedBytes > ahead {
                    try memory.take(page.storedBytes - ahead)
                } else {
                    memory.giveBack(ahead - page.storedBytes)
                }
                held += page.storedBytes - ahead
            }
            read += page.storedBytes
            // Before its objects are handed on: a read that stopped at its step would have
            // the ids it did not reach sorted out next, as many as the relations named.
            if onEventLoop && read > RelationLoader.loopBytes { throw LoopWork.Outgrown() }
            let stoppedAtStep = page.endedAtByteLimit && memory != nil && ahead < (bytesLeft ?? .max)
            if let limit, let left = bytesLeft {
                bytesLeft = left - page.storedBytes
                if page.endedAtByteLimit && (!stoppedAtStep || left - page.storedBytes <= 0) {
                    throw DatastoreError.expansionTooLarge(limit: limit)
                }
            }
            return stoppedAtStep
        }

        /// Gives back all it holds.
        mutating func giveBackAll() {
            memory?.giveBack(held)
            held = 0
        }
    }

    /// A related object loaded and not yet followed.
    private struct Loaded {
        let relations: [ExpansionGraph.Relation]
        let object: JSONObject
        let slot: Int
    }

    /// Follows the relations of the objects one round loaded, each from the level after its
    /// own, shallowest first: an id named from two levels takes the shallower, and is then
    /// followed as deep as that asks (`ExpansionGraph.takeLowered` catches the rest).
    private func follow(_ loaded: [Loaded], in graph: inout ExpansionGraph) throws {
        let levels = loaded.map { graph.entries[$0.slot].level }
        var order = Array(loaded.indices)
        if levels.contains(where: { $0 != levels.first }) {
            order.sort { (levels[$0], $0) < (levels[$1], $1) }
        }
        for (position, index) in order.enumerated() {
            let item = loaded[index]
            let level = graph.entries[item.slot].level + 1
            graph.entries[item.slot].links = try link(item.object, relations: item.relations, level: level, remaining: order.count - position, in: &graph)
        }
    }

    /// `ExpansionGraph.link`, within `loopIds` on an event loop.
    private func link(
        _ object: JSONObject, relations: [ExpansionGraph.Relation], level: Int, remaining: Int, in graph: inout ExpansionGraph
    ) throws -> Int {
        try graph.link(object, relations: relations, level: level, remaining: remaining, idLimit: onEventLoop ? Self.loopIds : nil)
    }

    /// Replaces the relations `object` names from `links` on by their objects, `depth` levels
    /// deep.
    private static func assemble(
        _ object: inout JSONObject, relations: [ExpansionGraph.Relation], links start: Int, depth: Int, graph: inout ExpansionGraph
    ) {
        guard depth > 0, start != ExpansionGraph.notLinked else { return }
        var cursor = start
        for relation in relations {
            let count = graph.links[cursor]
            cursor += 1
            guard count != ExpansionGraph.absent else { continue }
            let slots = cursor..<(cursor + count)
            cursor += count
            func resolve(_ slot: Int) -> JSONValue? {
                if depth > 1, let assembled = graph.entries[slot].assembled, assembled.depth == depth - 1 { return .object(assembled.object) }
                guard var related = graph.entries[slot].object else { return nil }
                // Unchanged, and so the same storage wherever it occurs.
                guard depth > 1 else { return .object(related) }
                // Shown at this depth only: taken, so that it is assembled in place.
                if !graph.entries[slot].atSeveralDepths { graph.entries[slot].object = nil }
                assemble(
                    &related, relations: graph.targets[relation.target].relations, links: graph.entries[slot].links, depth: depth - 1,
                    graph: &graph)
                graph.entries[slot].assembled = (depth - 1, related)
                return .object(related)
            }
            if relation.toMany {
                var related: [JSONValue] = []
                related.reserveCapacity(count)
                for position in slots {
                    if let object = resolve(graph.links[position]) { related.append(object) }
                }
                object[relation.field] = .array(related)
            } else {
                // A to-one field holding several ids shows the first.
                object[relation.field] = slots.first.flatMap { resolve(graph.links[$0]) }
            }
        }
    }

    /// The ids a relation value holds: one string, or an array of strings.
    static func ids(in value: JSONValue?) -> [String] {
        var ids: [String] = []
        forEachId(in: value) { ids.append($0) }
        return ids
    }

    /// `ids(in:)` one by one, with no array made: expansion walks every relation of every
    /// object it loads.
    static func forEachId(in value: JSONValue?, _ body: (String) -> Void) {
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
}
