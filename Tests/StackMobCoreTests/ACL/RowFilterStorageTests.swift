import Foundation
import StackMobCore
import StackMobSQLite
import Testing

/// Row rules run inside SQLite: what they admit, and that an owner-restricted page uses the
/// owner's newest-first index every schema table has (`NewestFirstIndex`, PROTOCOL §12).
@Suite("Access control: row filters in SQL")
struct RowFilterStorageTests {
    private func withDatastore<T>(_ body: (SQLiteStorageEngine, Datastore) async throws -> T) async throws -> T {
        try await TemporaryDatabase.withEngine { engine, registry in
            let datastore = try await Datastore.open(
                storage: engine, registry: registry, inferenceEnabled: true, userSchemas: [UserSchema()],
                relationships: ["user": ["friends": .relation(target: "user", toMany: true)], "doc": ["editors": .relation(target: "user", toMany: true), "reviewer": .relation(target: "user", toMany: false)]],
                passwordHasher: PasswordHasher(rounds: 1))
            return try await body(engine, datastore)
        }
    }

    private func ids(_ engine: SQLiteStorageEngine, _ schema: SchemaDefinition, _ rows: RowFilter) async throws -> Set<String> {
        let page = try await engine.read { try await $0.fetchObjects(schema, query: ObjectQuery(filter: .access(rows))) }
        return Set(page.objects.compactMap { $0[schema.primaryKey]?.stringValue })
    }

    @Test("owner, one-to-one and one-to-many relations, owner's relation, any, nothing")
    func admits() async throws {
        try await withDatastore { engine, datastore in
            _ = try await datastore.create(["username": "olivia", "password": "x", "friends": ["fred", "rex"]], in: "user", caller: .privateKey)
            _ = try await datastore.create(["username": "eve", "password": "x", "friends": ["rex"]], in: "user", caller: .privateKey)
            _ = try await datastore.create(["doc_id": "d1", "editors": ["rex", "fred"], "reviewer": "eve"], in: "doc", caller: .user(schema: "user", id: "olivia"))
            _ = try await datastore.create(["doc_id": "d2", "editors": ["eve"], "reviewer": "rex"], in: "doc", caller: .user(schema: "user", id: "eve"))
            _ = try await datastore.create(["doc_id": "d3"], in: "doc", caller: .anonymous)
            let doc = try #require(datastore.registry.definition(named: "doc"))
            #expect(try await ids(engine, doc, .ownerIs("user/olivia")) == ["d1"])
            #expect(try await ids(engine, doc, .relationContains(field: "editors", toMany: true, id: "fred")) == ["d1"])
            #expect(try await ids(engine, doc, .relationContains(field: "editors", toMany: true, id: "eve")) == ["d2"])
            #expect(try await ids(engine, doc, .relationContains(field: "reviewer", toMany: false, id: "rex")) == ["d2"])
            let friendOf = { (id: String) in
                RowFilter.ownerAmong(userSchema: "user", primaryKey: "username", matching: .relationContains(field: "friends", toMany: true, id: id))
            }
            #expect(try await ids(engine, doc, friendOf("fred")) == ["d1"])
            #expect(try await ids(engine, doc, friendOf("rex")) == ["d1", "d2"])
            #expect(try await ids(engine, doc, friendOf("olivia")) == [])
            #expect(try await ids(engine, doc, .any([.ownerIs("user/eve"), .relationContains(field: "editors", toMany: true, id: "fred")])) == ["d1", "d2"])
            #expect(try await ids(engine, doc, .nothing) == [])
            // A value that looks like SQL is only ever a bound value.
            #expect(try await ids(engine, doc, .ownerIs("user/olivia' OR '1'='1")) == [])
        }
    }

    @Test("an owner-restricted page, newest first, and its count read the owner's newest-first index, with no sort")
    func usesOwnerIndex() async throws {
        try await withDatastore { engine, datastore in
            _ = try await datastore.create(["doc_id": "d1", "title": "t"], in: "doc", caller: .user(schema: "user", id: "olivia"))
            let doc = try #require(datastore.registry.definition(named: "doc"))
            let query = ObjectQuery(filter: .access(.ownerIs("user/olivia")), limit: 20, countsTotal: true)
            let plan = try await engine.queryPlan(doc, query: query)
            #expect(plan.contains { $0.contains("USING INDEX _sm_newest_doc.sm_owner") }, "\(plan)")
            #expect(plan.contains { $0.contains("USING COVERING INDEX _sm_newest_doc.sm_owner") }, "\(plan)")
            // Not even SQLite's partial sort of createddate ties by primary key.
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        }
    }
}
