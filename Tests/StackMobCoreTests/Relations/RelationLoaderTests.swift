import Foundation
import Synchronization
import StackMobSQLite
import Testing

@testable import StackMobCore

@Suite("RelationLoader")
struct RelationLoaderTests {
    @Test("every related object passes through the admit seam: nil hides it like a dangling id")
    func admitSeam() async throws {
        try await TemporaryDatabase.withDatastore { engine, registry, datastore in
            let written = try await datastore.upsertGraph(
                ["doc_id": "d", "tags": [["tag_id": "t1", "secret": true], ["tag_id": "t2", "n": 2], "gone"], "main": ["tag_id": "t1", "n": 1]],
                in: "doc", relations: try RelationMap.parse("tags=tag&main=tag"), caller: .anonymous)
            let schema = try #require(registry.definition(named: "doc"))
            let loader = RelationLoader(registry: registry, admit: { _ in { object in object["secret"] == true ? nil : object } })
            let expanded = try await engine.read { reader in try await loader.expand([written.object], schema: schema, depth: 1, reader: reader) }
            let tags = try #require(expanded.first?["tags"]?.arrayValue)
            #expect(tags.compactMap { $0.objectValue?["tag_id"]?.stringValue } == ["t2"])
            #expect(expanded.first?["main"] == nil)
            // Depth 0 leaves the ids as stored.
            let plain = try await engine.read { reader in try await loader.expand([written.object], schema: schema, depth: 0, reader: reader) }
            #expect(plain.first?["tags"] == ["t1", "t2", "gone"])
        }
    }

    @Test("a schema related to itself and a cycle between two schemas expand level by level to the depth asked")
    func cyclesAndSelfRelations() async throws {
        try await TemporaryDatabase.withDatastore { engine, registry, datastore in
            // person.friends → person (itself); person.home → house; house.owner → person (a cycle).
            let written = try await datastore.upsertGraph(
                [
                    "person_id": "ann", "friends": [["person_id": "bob", "friends": [["person_id": "cy", "n": 3]]]],
                    "home": ["house_id": "h1", "owner": ["person_id": "dee", "n": 4]],
                ],
                in: "person", relations: try RelationMap.parse("friends=person&friends.friends=person&home=house&home.owner=person"),
                caller: .anonymous)
            let schema = try #require(registry.definition(named: "person"))
            let loader = RelationLoader(registry: registry, admit: { _ in { $0 } })
            func expanded(_ depth: Int) async throws -> JSONObject {
                try #require(try await engine.read { reader in try await loader.expand([written.object], schema: schema, depth: depth, reader: reader) }.first)
            }
            let one = try await expanded(1)
            let bob = try #require(one["friends"]?.arrayValue?.first?.objectValue)
            #expect(bob["person_id"] == "bob" && bob["friends"] == ["cy"], "depth 1 leaves the friend's own relations as ids")
            #expect(one["home"]?.objectValue?["owner"] == "dee")
            let two = try await expanded(2)
            #expect(two["friends"]?.arrayValue?.first?.objectValue?["friends"]?.arrayValue?.first?.objectValue?["person_id"] == "cy")
            #expect(two["home"]?.objectValue?["owner"]?.objectValue?["person_id"] == "dee")
            #expect(try await expanded(0) == written.object, "depth 0 leaves the ids as stored")
        }
    }

    @Test("ids of a schema that was never created are dropped, and the other relations still expand")
    func missingTargetSchema() async throws {
        try await TemporaryDatabase.withDatastore { engine, registry, datastore in
            let written = try await datastore.upsertGraph(
                ["doc_id": "d", "main": ["tag_id": "t1", "n": 1]], in: "doc", relations: try RelationMap.parse("main=tag"), caller: .anonymous)
            // A relation to a schema with no table, as a declaration could leave it.
            var fields = try #require(registry.definition(named: "doc")).fields
            fields["ghost"] = .relation(target: "ghost", toMany: true)
            let schema = SchemaDefinition(name: "doc", primaryKey: "doc_id", fields: fields)
            var stored = written.object
            stored["ghost"] = ["g1", "g2"]
            let object = stored
            let loader = RelationLoader(registry: registry, admit: { _ in { $0 } })
            let expanded = try await engine.read { reader in try await loader.expand([object], schema: schema, depth: 2, reader: reader) }
            #expect(expanded.first?["ghost"] == [])
            #expect(expanded.first?["main"]?.objectValue?["tag_id"] == "t1")
        }
    }

    @Test("an object related from several objects, and at several depths, is expanded as deep as each place asks")
    func sharedRelatedObjects() async throws {
        try await TemporaryDatabase.withDatastore { engine, registry, datastore in
            // ann → bob → cy → dee → eve; yan → bob (bob shared at one depth); zed → cy (cy met
            // with one level left through ann and yan, with two through zed).
            let relations = try RelationMap.parse("friends=person&friends.friends=person&friends.friends.friends=person")
            _ = try await datastore.upsertGraph(["person_id": "dee", "friends": [["person_id": "eve", "n": 5]]], in: "person", relations: relations, caller: .anonymous)
            let chain: JSONObject = ["person_id": "bob", "friends": [["person_id": "cy", "friends": ["dee"]]]]
            let ann = try await datastore.upsertGraph(["person_id": "ann", "friends": [.object(chain)]], in: "person", relations: relations, caller: .anonymous)
            let yan = try await datastore.upsertGraph(["person_id": "yan", "friends": ["bob"]], in: "person", relations: relations, caller: .anonymous)
            let zed = try await datastore.upsertGraph(["person_id": "zed", "friends": ["cy"]], in: "person", relations: relations, caller: .anonymous)
            let schema = try #require(registry.definition(named: "person"))
            let loader = RelationLoader(registry: registry, admit: { _ in { $0 } })
            // yan again after zed: cy and dee are met with one level left, then more, then one again.
            func expanded(_ depth: Int) async throws -> [JSONObject] {
                try await engine.read { reader in
                    try await loader.expand([ann.object, yan.object, zed.object, yan.object], schema: schema, depth: depth, reader: reader)
                }
            }
            func friend(_ object: JSONObject?) -> JSONObject? { object?["friends"]?.arrayValue?.first?.objectValue }
            let three = try await expanded(3)
            for top in three[0...1] {
                #expect(friend(top)?["person_id"] == "bob")
                #expect(friend(friend(friend(top)))?["person_id"] == "dee")
                #expect(friend(friend(friend(top)))?["friends"] == ["eve"], "dee is three levels down: its friends stay ids")
            }
            #expect(friend(three[2])?["person_id"] == "cy")
            #expect(friend(friend(friend(three[2])))?["person_id"] == "eve", "through zed, cy has two levels left")
            #expect(three[3] == three[1], "after zed, cy has one level left again, and dee's friends stay ids")
            let one = try await expanded(1)
            #expect(one.map { friend($0)?["friends"] } == [["cy"], ["cy"], ["dee"], ["cy"]])
            // zed first: dee is assembled (one level left, through cy) before ann needs it as
            // loaded. Only cy is named from two levels; dee, below it, must keep its loaded form
            // too (`ExpansionGraph.markObjectsAtSeveralDepths`).
            let zedFirst = try await engine.read { reader in
                try await loader.expand([zed.object, ann.object], schema: schema, depth: 3, reader: reader)
            }
            #expect(friend(friend(zedFirst[0]))?["person_id"] == "dee" && friend(friend(friend(zedFirst[0])))?["person_id"] == "eve")
            #expect(friend(friend(friend(zedFirst[1])))?["person_id"] == "dee")
            #expect(friend(friend(friend(zedFirst[1])))?["friends"] == ["eve"], "through ann, dee's friends stay ids")
        }
    }

    @Test("a schema named at two levels is read with one statement, once the schemas that lead to it are read")
    func schemaNamedAtTwoLevels() async throws {
        try await TemporaryDatabase.withDatastore { engine, registry, datastore in
            // doc.author → person; doc.tags → tag; tag.owner → person: people at two levels.
            let relations = try RelationMap.parse("author=person&tags=tag&tags.owner=person")
            let written = try await datastore.upsertGraph(
                [
                    "doc_id": "d", "author": ["person_id": "ann", "n": 1],
                    "tags": [["tag_id": "t1", "owner": ["person_id": "bob", "n": 2]], ["tag_id": "t2", "owner": "ann"]],
                ],
                in: "doc", relations: relations, caller: .anonymous)
            let schema = try #require(registry.definition(named: "doc"))
            let loader = RelationLoader(registry: registry, admit: { _ in { $0 } })
            func expanded(_ depth: Int) async throws -> (doc: JSONObject, loads: [String]) {
                try await engine.read { reader in
                    let recording = ObservingReader(base: reader)
                    let docs = try await loader.expand([written.object], schema: schema, depth: depth, reader: recording)
                    return (try #require(docs.first), recording.loads)
                }
            }
            let two = try await expanded(2)
            #expect(two.loads == ["tag", "person"], "the tags first, then the author and the tags' owners together")
            #expect(two.doc["author"]?.objectValue?["n"] == 1)
            let owners = two.doc["tags"]?.arrayValue?.map { $0.objectValue?["owner"]?.objectValue?["person_id"] }
            #expect(owners == ["bob", "ann"])
            // One level: the owners stay ids, and the reads are the same two.
            let one = try await expanded(1)
            #expect(one.loads == ["tag", "person"])
            #expect(one.doc["author"]?.objectValue?["person_id"] == "ann")
            #expect(one.doc["tags"]?.arrayValue?.map { $0.objectValue?["owner"] } == ["bob", "ann"])
        }
    }

    @Test("an object read before it is named from a shallower level is still followed as deep as that level asks")
    func namedFromAShallowerLevelOnceRead() async throws {
        try await TemporaryDatabase.withDatastore { engine, registry, datastore in
            // alpha.b → bee, alpha.e → eee → eff → cee; bee.c2 → cee and cee.b2 → bee (a cycle).
            // Read in `loadOrder`'s order, eee and eff come first, then bee and cee together (each
            // leads to the other): x is read as eff's cee, two levels down, and only then named
            // by bee b1, one level down, so it must be followed again from there.
            let relations = try RelationMap.parse("b=bee&b.c2=cee&b.c2.b2=bee&e=eee&e.f=eff&e.f.c=cee")
            let written = try await datastore.upsertGraph(
                [
                    "alpha_id": "a1",
                    "b": ["bee_id": "b1", "c2": ["cee_id": "x", "b2": ["bee_id": "b2", "n": 2]]],
                    "e": ["eee_id": "e1", "f": ["eff_id": "f1", "c": "x"]],
                ],
                in: "alpha", relations: relations, caller: .anonymous)
            let schema = try #require(registry.definition(named: "alpha"))
            let loader = RelationLoader(registry: registry, admit: { _ in { $0 } })
            let (expanded, loads) = try await engine.read { reader in
                let recording = ObservingReader(base: reader)
                let objects = try await loader.expand([written.object], schema: schema, depth: 3, reader: recording)
                return (try #require(objects.first), recording.loads)
            }
            #expect(loads == ["eee", "eff", "bee", "cee", "bee"])
            let throughBee = expanded["b"]?.objectValue?["c2"]?.objectValue
            #expect(throughBee?["cee_id"] == "x")
            #expect(throughBee?["b2"]?.objectValue?["n"] == 2, "x two levels down: its bee is expanded")
            let throughEff = expanded["e"]?.objectValue?["f"]?.objectValue?["c"]?.objectValue
            #expect(throughEff?["cee_id"] == "x")
            #expect(throughEff?["b2"] == "b2", "x three levels down: its bee stays an id")
        }
    }

    @Test("objects an engine returns in any order still land where their ids are", arguments: [false, true])
    func anyOrderFromTheEngine(reversed: Bool) async throws {
        try await TemporaryDatabase.withDatastore { engine, registry, datastore in
            let relations = try RelationMap.parse("tags=tag&main=tag&tags.owner=person")
            let written = try await datastore.upsertGraph(
                [
                    "doc_id": "d", "main": "t3",
                    "tags": [
                        ["tag_id": "t1", "owner": ["person_id": "p1", "n": 1]], ["tag_id": "t2", "owner": "p1"], "gone",
                        ["tag_id": "t3", "owner": ["person_id": "p2", "n": 2]], ["tag_id": "t4", "n": 4],
                    ],
                ],
                in: "doc", relations: relations, caller: .anonymous)
            let schema = try #require(registry.definition(named: "doc"))
            let loader = RelationLoader(registry: registry, admit: { _ in { $0 } })
            let expanded = try #require(
                try await engine.read { reader in
                    try await loader.expand([written.object], schema: schema, depth: 2, reader: ObservingReader(base: reader, reversed: reversed))
                }.first)
            let tags = try #require(expanded["tags"]?.arrayValue)
            #expect(tags.compactMap { $0.objectValue?["tag_id"]?.stringValue } == ["t1", "t2", "t3", "t4"])
            #expect(tags.map { $0.objectValue?["owner"]?.objectValue?["person_id"]?.stringValue } == ["p1", "p1", "p2", nil])
            #expect(expanded["main"]?.objectValue?["owner"]?.objectValue?["n"] == 2)
        }
    }

    /// A reader that notes the schema of every load by id, in order (the statements expansion
    /// runs), and with `reversed` returns their objects in the reverse of the ids' order, as an
    /// engine may: nothing promises the order.
    @Test("on an event loop an expansion stops with Outgrown past the ids or the bytes it may take there, and off it goes on")
    func loopBounds() async throws {
        try await TemporaryDatabase.withDatastore { engine, registry, datastore in
            let tags = (0...RelationLoader.loopIds).map { JSONValue.object(["tag_id": .string("t\($0)"), "n": .integer(Int64($0))]) }
            let many = try await datastore.upsertGraph(["doc_id": "many", "tags": .array(tags)], in: "doc", relations: try RelationMap.parse("tags=tag"), caller: .anonymous)
            let text = String(repeating: "x", count: RelationLoader.loopBytes / 4)
            let large = (0..<5).map { JSONValue.object(["tag_id": .string("big\($0)"), "text": .string(text)]) }
            let big = try await datastore.upsertGraph(["doc_id": "big", "tags": .array(large)], in: "doc", relations: try RelationMap.parse("tags=tag"), caller: .anonymous)
            let few = try await datastore.upsertGraph(["doc_id": "few", "tags": .array(Array(large.prefix(2)))], in: "doc", relations: try RelationMap.parse("tags=tag"), caller: .anonymous)
            let schema = try #require(registry.definition(named: "doc"))
            var onLoop = RelationLoader(registry: registry, admit: { _ in { $0 } })
            onLoop.onEventLoop = true
            let offLoop = RelationLoader(registry: registry, admit: { _ in { $0 } })
            func expanded(_ object: JSONObject, with loader: RelationLoader) async throws -> [JSONValue] {
                let objects = try await engine.read { reader in try await loader.expand([object], schema: schema, depth: 1, reader: reader) }
                return objects.first?["tags"]?.arrayValue ?? []
            }
            // More ids than `loopIds`, before any is linked or read.
            await #expect(throws: LoopWork.Outgrown.self) { try await expanded(many.object, with: onLoop) }
            // More than `loopBytes` read.
            await #expect(throws: LoopWork.Outgrown.self) { try await expanded(big.object, with: onLoop) }
            // Within both, on the loop; past them, off it.
            #expect(try await expanded(few.object, with: onLoop).count == 2)
            #expect(try await expanded(big.object, with: offLoop).count == 5)
            let all = try await expanded(many.object, with: offLoop)
            #expect(all.count == RelationLoader.loopIds + 1)
        }
    }

    private struct ObservingReader: StorageReader {
        final class Log: Sendable {
            let names = Mutex<[String]>([])
        }

        let base: any StorageReader
        var reversed = false
        private let log = Log()

        init(base: any StorageReader, reversed: Bool = false) {
            self.base = base
            self.reversed = reversed
        }

        var loads: [String] { log.names.withLock { $0 } }

        func fetchObject(_ schema: SchemaDefinition, id: String) async throws -> JSONObject? {
            try await base.fetchObject(schema, id: id)
        }

        func fetchObjects(_ schema: SchemaDefinition, query: ObjectQuery) async throws -> ObjectPage {
            try await base.fetchObjects(schema, query: query)
        }

        func fetchPrimaryKeys(_ schema: SchemaDefinition, query: ObjectQuery) async throws -> [String] {
            try await base.fetchPrimaryKeys(schema, query: query)
        }

        func fetchObjects(_ schema: SchemaDefinition, ids: [String], admitting rows: RowFilter?, byteLimit: Int?) async throws -> ObjectPage {
            log.names.withLock { $0.append(schema.name) }
            var page = try await base.fetchObjects(schema, ids: ids, admitting: rows, byteLimit: byteLimit)
            if reversed { page.objects.reverse() }
            return page
        }

        func fetchObjects(_ schema: SchemaDefinition, orderedIDs ids: [String], admitting rows: RowFilter?, byteLimit: Int) async throws -> ObjectPage {
            try await base.fetchObjects(schema, orderedIDs: ids, admitting: rows, byteLimit: byteLimit)
        }
    }
}
