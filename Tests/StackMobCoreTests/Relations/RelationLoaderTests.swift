import Foundation
import Testing

@testable import StackMobCore

@Suite("RelationLoader")
struct RelationLoaderTests {
    @Test("every related object passes through the admit seam: nil hides it like a dangling id")
    func admitSeam() async throws {
        try await TemporaryDatabase.withEngine { engine, registry in
            let datastore = try await Datastore.open(
                storage: engine, registry: registry, inferenceEnabled: true, userSchemas: [], passwordHasher: PasswordHasher(rounds: 1))
            let written = try await datastore.upsertGraph(
                ["doc_id": "d", "tags": [["tag_id": "t1", "secret": true], ["tag_id": "t2", "n": 2], "gone"], "main": ["tag_id": "t1", "n": 1]],
                in: "doc", relations: try RelationMap.parse("tags=tag&main=tag"), caller: .anonymous)
            let schema = try #require(registry.definition(named: "doc"))
            let loader = RelationLoader(registry: registry, admit: { _, object in object["secret"] == true ? nil : object })
            let expanded = try await engine.read { reader in try await loader.expand([written.object], schema: schema, depth: 1, reader: reader) }
            let tags = try #require(expanded.first?["tags"]?.arrayValue)
            #expect(tags.compactMap { $0.objectValue?["tag_id"]?.stringValue } == ["t2"])
            #expect(expanded.first?["main"] == nil)
            // Depth 0 leaves the ids as stored.
            let plain = try await engine.read { reader in try await loader.expand([written.object], schema: schema, depth: 0, reader: reader) }
            #expect(plain.first?["tags"] == ["t1", "t2", "gone"])
        }
    }
}
