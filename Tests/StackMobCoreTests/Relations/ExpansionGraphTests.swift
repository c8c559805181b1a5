import Testing

@testable import StackMobCore

@Suite("ExpansionGraph")
struct ExpansionGraphTests {
    private static let doc = SchemaDefinition(
        name: "doc", primaryKey: "doc_id",
        fields: ["tags": .relation(target: "tag", toMany: true), "main": .relation(target: "tag", toMany: false)])

    @Test("each id gets one slot per schema; links hold each relation's count (or absent) and slots, in order")
    func slotsAndLinks() throws {
        var graph = ExpansionGraph(registry: SchemaRegistry())
        let relations = graph.relations(of: Self.doc)
        let first = try graph.link(["doc_id": "d1", "tags": ["t1", "t2", "t1"], "main": "t2"], relations: relations, level: 0, remaining: 2)
        let second = try graph.link(["doc_id": "d2", "tags": ["t3"]], relations: relations, level: 0, remaining: 1)
        #expect(graph.entries.count == 3, "t1, t2 and t3, each once")
        func layout(from start: Int) -> [String: [Int]] {
            var cursor = start
            var fields: [String: [Int]] = [:]
            for relation in relations {
                let count = graph.links[cursor]
                cursor += 1
                guard count != ExpansionGraph.absent else { continue }
                fields[relation.field] = Array(graph.links[cursor..<cursor + count])
                cursor += count
            }
            return fields
        }
        let tag = try #require(graph.pendingTargets().first)
        let pending = graph.takePending(of: tag)
        // A schema's relations come in its fields' (unordered) order, and slots in the order ids
        // are met: the layout is compared by id.
        #expect(pending.ids.sorted() == ["t1", "t2", "t3"] && pending.slots.sorted() == [0, 1, 2])
        let idOfSlot = Dictionary(uniqueKeysWithValues: zip(pending.slots, pending.ids))
        func ids(from start: Int) -> [String: [String]] { layout(from: start).mapValues { $0.compactMap { idOfSlot[$0] } } }
        #expect(ids(from: first) == ["tags": ["t1", "t2", "t1"], "main": ["t2"]])
        #expect(ids(from: second) == ["tags": ["t3"]], "a field the object lacks is absent, not empty")
        #expect(graph.pendingTargets().isEmpty)
    }

    @Test("a loaded object's slot is found in the order asked, and by its id out of that order")
    func loadedObjectsInAnyOrder() throws {
        var graph = ExpansionGraph(registry: SchemaRegistry())
        _ = try graph.link(["doc_id": "d", "tags": ["a", "b", "c", "d"]], relations: graph.relations(of: Self.doc), level: 0, remaining: 1)
        let tag = try #require(graph.pendingTargets().first)
        let (ids, slots) = graph.takePending(of: tag)
        var cursor = 0
        let found = ["b", "d", "a", "c", "zz"].map { graph.slot(ofLoaded: $0, target: tag, ids: ids, slots: slots, cursor: &cursor) }
        #expect(found == [1, 3, 0, 2, nil])
    }

    @Test("an object named from two levels, and every object below it, may be shown at several depths; no other is")
    func objectsAtSeveralDepths() throws {
        let person = SchemaDefinition(name: "person", primaryKey: "person_id", fields: ["friends": .relation(target: "person", toMany: true)])
        var graph = ExpansionGraph(registry: SchemaRegistry())
        let relations = graph.relations(of: person)
        _ = try graph.link(["person_id": "top", "friends": ["a", "b"]], relations: relations, level: 0, remaining: 1)
        let target = try #require(graph.pendingTargets().first)
        graph.setRelations(relations, of: target)
        var slots: [String: Int] = [:]
        func takePending() {
            let pending = graph.takePending(of: target)
            for (id, slot) in zip(pending.ids, pending.slots) { slots[id] = slot }
        }
        takePending()
        // a names c; b names a, which the top object named a level up; c names d.
        let a = try #require(slots["a"]), b = try #require(slots["b"])
        graph.entries[a].links = try graph.link(["person_id": "a", "friends": ["c"]], relations: relations, level: 1, remaining: 2)
        graph.entries[b].links = try graph.link(["person_id": "b", "friends": ["a"]], relations: relations, level: 1, remaining: 1)
        takePending()
        let c = try #require(slots["c"])
        graph.entries[c].links = try graph.link(["person_id": "c", "friends": ["d"]], relations: relations, level: 2, remaining: 1)
        takePending()
        let d = try #require(slots["d"])
        #expect(graph.entries[a].atSeveralDepths && !graph.entries[c].atSeveralDepths, "named from levels 0 and 1; c only from a")
        graph.markObjectsAtSeveralDepths()
        #expect([a, b, c, d].map { graph.entries[$0].atSeveralDepths } == [true, false, true, true])
    }

    @Test("one object with many ids does not reserve as many for every object after it")
    func reservationsAreBounded() throws {
        var graph = ExpansionGraph(registry: SchemaRegistry())
        let many = JSONValue.array((0..<3_000).map { .string("t\($0)") })
        _ = try graph.link(["doc_id": "d", "tags": many], relations: graph.relations(of: Self.doc), level: 0, remaining: 1_000)
        let tag = try #require(graph.pendingTargets().first)
        // Sized for the other 999 objects at 3,000 ids each, the tables would hold three million.
        #expect(graph.targets[tag].slots.capacity < 20_000)
        #expect(graph.entries.capacity < 20_000)
        #expect(graph.links.capacity < 20_000)
    }
}
