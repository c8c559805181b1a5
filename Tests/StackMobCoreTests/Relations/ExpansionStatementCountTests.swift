import Foundation
import StackMobCore
import Testing

/// Expansion loads each level with one statement per target schema (PROTOCOL §5.5): the number of
/// SQL statements for an expanded read does not grow with the number of objects.
@Suite("Expansion statement count")
struct ExpansionStatementCountTests {
    /// `documents` docs, each with 10 tags of its own, each tag with an owner; then one expanded
    /// read of every doc at depth 2. Returns the statements that read ran and the docs it returned.
    private func expandedRead(documents: Int) async throws -> (statements: Int, docs: [JSONObject]) {
        let counter = StatementCounter()
        return try await TemporaryDatabase.withDatastore(statementCounter: counter) { _, _, datastore in
            let relations = try RelationMap.parse("tags=tag&tags.owner=person")
            for doc in 0..<documents {
                let tags: [JSONValue] = (0..<10).map { tag in
                    ["tag_id": .string("t\(doc)_\(tag)"), "owner": ["person_id": .string("p\(doc)_\(tag)"), "name": "someone"]]
                }
                _ = try await datastore.upsertGraph(["doc_id": .string("d\(doc)"), "tags": .array(tags)], in: "doc", relations: relations, caller: .anonymous)
            }
            counter.reset()
            let result = try await datastore.query(in: "doc", QueryRequest(expand: 2), caller: .anonymous)
            return (counter.value, result.objects)
        }
    }

    @Test("20 and 40 objects with 10 related ids each, depth 2: the same small number of statements")
    func constantStatements() async throws {
        let twenty = try await expandedRead(documents: 20)
        let forty = try await expandedRead(documents: 40)
        // The expansion really happened, two levels deep, for every object.
        #expect(twenty.docs.count == 20)
        #expect(forty.docs.count == 40)
        for doc in forty.docs {
            let tags = doc["tags"]?.arrayValue ?? []
            #expect(tags.count == 10)
            #expect(tags.allSatisfy { $0.objectValue?["owner"]?.objectValue?["name"] == "someone" })
        }
        #expect(twenty.statements == forty.statements)
        // Three SELECTs (the page, then one per target schema) and the read transaction's own
        // statements around them: 6 in all, measured.
        #expect(twenty.statements <= 6, "statements: \(twenty.statements)")
    }

    @Test("a schema named at two levels (the docs' authors, their tags' owners) costs depth 2 no statement more than depth 1")
    func schemaAtTwoLevels() async throws {
        let counter = StatementCounter()
        try await TemporaryDatabase.withDatastore(statementCounter: counter) { _, _, datastore in
            let relations = try RelationMap.parse("author=person&tags=tag&tags.owner=person")
            for doc in 0..<10 {
                let tags: [JSONValue] = (0..<3).map { tag in
                    ["tag_id": .string("t\(doc)_\(tag)"), "owner": ["person_id": .string("o\(doc)_\(tag)"), "n": 1]]
                }
                let document: JSONObject = ["doc_id": .string("d\(doc)"), "author": ["person_id": .string("a\(doc)"), "n": 1], "tags": .array(tags)]
                _ = try await datastore.upsertGraph(document, in: "doc", relations: relations, caller: .anonymous)
            }
            func statements(depth: Int) async throws -> (count: Int, docs: [JSONObject]) {
                counter.reset()
                let result = try await datastore.query(in: "doc", QueryRequest(expand: depth), caller: .anonymous)
                return (counter.value, result.objects)
            }
            let one = try await statements(depth: 1)
            let two = try await statements(depth: 2)
            #expect(two.count == one.count, "depth 1: \(one.count) statements, depth 2: \(two.count)")
            #expect(two.docs.count == 10)
            for doc in two.docs {
                #expect(doc["author"]?.objectValue?["person_id"]?.stringValue?.hasPrefix("a") == true)
                let owners = doc["tags"]?.arrayValue?.compactMap { $0.objectValue?["owner"]?.objectValue?["person_id"] } ?? []
                #expect(owners.count == 3)
            }
        }
    }
}
