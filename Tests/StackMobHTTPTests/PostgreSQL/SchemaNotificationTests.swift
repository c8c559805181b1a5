import Foundation
import StackMobCore
@testable import StackMobPostgres
import StackMobTestSupport
import Testing

/// Two instances' engines on one PostgreSQL database: while the schema listener is up and quiet,
/// a request asks nothing about schemas; a change made through one reaches the other; a change
/// whose notification is still on its way is found before a name is refused; and with the
/// listener gone every request checks the version again (docs/operations.md, "More than one
/// instance").
@Suite("Several instances on PostgreSQL: schema changes notified")
struct SchemaNotificationTests {
    static let enabled = TestServer.postgreSQLURL != nil

    /// An instance's datastore, over the engine whose version checks a test counts.
    struct Instance {
        let engine: PostgresStorageEngine
        let datastore: Datastore

        static func open(_ configuration: StackMobConfiguration, inference: Bool = true) async throws -> Instance {
            let registry = SchemaRegistry()
            let storage = try await TestServer.storage(configuration).open(.development, registry: registry, indexes: [:])
            let engine = try #require(storage.engine as? PostgresStorageEngine)
            let datastore = try await Datastore.open(storage: engine, registry: registry, inferenceEnabled: inference, userSchemas: [])
            return Instance(engine: engine, datastore: datastore)
        }

        var checks: Int { engine.versionChecks.load(ordering: .relaxed) }

        /// What each request does first (`AuthenticationMiddleware`), then a read by id.
        func request(_ id: String, in schema: String) async throws -> JSONObject {
            try await datastore.refreshSchemas()
            return try await datastore.read(id: id, in: schema, caller: .privateKey)
        }

        /// Waits until the listener listens and a request has taken in what it may have missed.
        func settle() async throws {
            try await Self.waitUntil { engine.listener.isListening }
            try await datastore.refreshSchemas()
            #expect(!engine.mayHaveSchemaChanges)
        }

        static func waitUntil(seconds: Double = 20, _ condition: () -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while !condition() {
                guard ContinuousClock.now < deadline else {
                    Issue.record("condition not met within \(seconds) s")
                    return
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// Two instances on one fresh pair of schemas, each listening, handed to `body` with their
    /// configuration, and closed after it. B infers schemas unless `bInfers` is false (a
    /// production instance, where only the database can tell it a field exists).
    private func withTwoInstances(
        bInfers: Bool = true, _ body: (_ a: Instance, _ b: Instance, StackMobConfiguration) async throws -> Void
    ) async throws {
        try await TestServer.withDataDirectory { directory in
            let configuration = TestServer.configuration(dataDirectory: directory)
            let a = try await Instance.open(configuration)
            let b = try await Instance.open(configuration, inference: bInfers)
            do {
                try await a.settle()
                try await b.settle()
                try await body(a, b, configuration)
            } catch {
                try? await a.engine.close()
                try? await b.engine.close()
                throw error
            }
            try await a.engine.close()
            try await b.engine.close()
        }
    }

    @Test("a read asks nothing about schemas while nothing changed; a change on A is notified and seen on B", .enabled(if: enabled, "needs STACKMOB_TEST_POSTGRESQL_URL"))
    func quietAndNotified() async throws {
        try await withTwoInstances { a, b, _ in
            _ = try await a.datastore.create(["note_id": "n1", "title": "first"], in: "note", caller: .privateKey)
            try await Instance.waitUntil { b.engine.mayHaveSchemaChanges }
            let before = b.checks
            #expect(try await b.request("n1", in: "note")["title"] == .string("first"))
            #expect(b.checks == before + 1)

            for _ in 0..<5 { _ = try await b.request("n1", in: "note") }
            #expect(b.checks == before + 1, "reads with nothing changed asked for the schema version")

            _ = try await a.datastore.create(["note_id": "n2", "title": "second", "stars": 3], in: "note", caller: .privateKey)
            try await Instance.waitUntil { b.engine.mayHaveSchemaChanges }
            #expect(try await b.request("n2", in: "note")["stars"] == .integer(3))
            #expect(b.checks == before + 2)
        }
    }

    @Test(
        "a schema or field made on A whose notification has not reached B: B looks it up before refusing it",
        .enabled(if: enabled, "needs STACKMOB_TEST_POSTGRESQL_URL"))
    func notificationOnItsWay() async throws {
        try await withTwoInstances(bInfers: false) { a, b, _ in
            b.engine.listener.dropNotifications(true)

            _ = try await a.datastore.create(["late_id": "l1", "size": 1], in: "late", caller: .privateKey)
            try await Task.sleep(for: .milliseconds(200))
            #expect(!b.engine.mayHaveSchemaChanges)
            #expect(try await b.request("l1", in: "late")["size"] == .integer(1))

            _ = try await a.datastore.create(["late_id": "l2", "size": 2, "color": "red"], in: "late", caller: .privateKey)
            try await datastoreQuery(b, "late", filter: ["color": "red"], expecting: ["l2"])
            _ = try await a.datastore.create(["late_id": "l3", "size": 3, "shape": "round"], in: "late", caller: .privateKey)
            let created = try await b.datastore.create(["late_id": "l4", "shape": "square"], in: "late", caller: .privateKey)
            #expect(created.object["shape"] == .string("square"))
            _ = try await a.datastore.create(["late_id": "l5", "weight": 5], in: "late", caller: .privateKey)
            let updated = try await b.datastore.update(id: "l4", in: "late", changes: ["weight": 4], caller: .privateKey)
            #expect(updated["weight"] == .integer(4))
        }
    }

    @Test("with the listener's connection gone, every request checks the version; once back, none", .enabled(if: enabled, "needs STACKMOB_TEST_POSTGRESQL_URL"))
    func listenerLost() async throws {
        try await withTwoInstances { a, b, configuration in
            _ = try await a.datastore.create(["gone_id": "g1"], in: "gone", caller: .privateKey)
            try await Instance.waitUntil { b.engine.mayHaveSchemaChanges }
            _ = try await b.request("g1", in: "gone")

            // Both instances' listeners on this environment's channel.
            let schema = configuration.storage.postgresql.schemaName(for: .development)
            let terminated = try await a.engine.database.execute(
                PostgresStatement(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
                    [.text("stackmob-server listener \(schema)")]))
            #expect(terminated.count == 2)
            try await Instance.waitUntil { !b.engine.listener.isListening }
            #expect(b.engine.mayHaveSchemaChanges)
            // Made while B listens to nothing, or just after it listens again: seen either way.
            _ = try await a.datastore.create(["gone_id": "g2", "extra": 1], in: "gone", caller: .privateKey)
            let before = b.checks
            #expect(try await b.request("g2", in: "gone")["extra"] == .integer(1))
            #expect(b.checks == before + 1)

            try await b.settle()
            let settled = b.checks
            for _ in 0..<3 { _ = try await b.request("g2", in: "gone") }
            #expect(b.checks == settled)
        }
    }

    private func datastoreQuery(_ instance: Instance, _ schema: String, filter: [String: String], expecting ids: [String]) async throws {
        let request = QueryRequest(filter: try QueryParser.parse(filter.map { ($0.key, $0.value) }))
        let result = try await instance.datastore.query(in: schema, request, caller: .privateKey)
        #expect(result.objects.compactMap { $0["\(schema)_id"]?.stringValue } == ids)
    }
}
