import Foundation
import HummingbirdTesting
import StackMobApp
import StackMobCore
import StackMobHTTP
@testable import StackMobPostgres
import Synchronization
import StackMobTestSupport
import Testing

/// What only the PostgreSQL engine has: its query plans, and how it fails to start. The rest of
/// the suite runs on it too (the `postgresql` tier of scripts/test.sh, docs/testing.md).
@Suite("PostgreSQL engine")
struct PostgreSQLEngineTests {
    static let enabled = TestServer.postgreSQLURL != nil

    /// Creates one object through the server, and with it the schema's table and indexes, before
    /// a test opens the engine on its own.
    static func createObject(_ path: String, _ object: JSONValue, configuration: StackMobConfiguration) async throws {
        try await TestServer.run(configuration: configuration) { client in
            let created = try await client.post(path, object)
            #expect(created.status == .created)
        }
    }

    /// The engine on a fresh data directory's configuration, closed after `body`.
    static func withEngine(_ body: (PostgresStorageEngine) async throws -> Void) async throws {
        try await TestServer.withDataDirectory { directory in
            let configuration = TestServer.configuration(dataDirectory: directory)
            let storage = try await TestServer.storage(configuration).open(.development, registry: SchemaRegistry(), indexes: [:])
            let engine = try #require(storage.engine as? PostgresStorageEngine)
            try await body(engine)
            try await engine.close()
        }
    }

    @Test("geo queries read the GiST index of the point, then check the exact distance", .enabled(if: enabled, "needs STACKMOB_TEST_POSTGRESQL_URL"))
    func geoIndexPlan() async throws {
        try await TestServer.withDataDirectory { directory in
            let configuration = TestServer.configuration(dataDirectory: directory)
            try await Self.createObject("/place", ["name": "origin", "loc": ["lat": 0, "lon": 0]], configuration: configuration)
            let storage = try await TestServer.storage(configuration).open(.development, registry: SchemaRegistry(), indexes: [:])
            let engine = try #require(storage.engine as? PostgresStorageEngine)
            let schema = try #require(try await engine.loadSchemaDefinitions().first { $0.name == "place" })
            let near = TypedFilter.condition(
                TypedCondition(field: "loc", target: .scalar, operation: .near(GeoPoint(lat: 0, lon: 0), maxDistance: 0.01)))
            let box = TypedFilter.condition(
                TypedCondition(
                    field: "loc", target: .scalar,
                    operation: .withinBox(southWest: GeoPoint(lat: -1, lon: -1), northEast: GeoPoint(lat: 1, lon: 1))))
            for filter in [near, box] {
                let plan = try await engine.queryPlan(schema, query: ObjectQuery(filter: filter, limit: 20)).joined(separator: "\n")
                #expect(plan.contains("_sm_geo_place.loc"), "\(plan)")
            }
            try await engine.close()
        }
    }

    @Test(
        "the default order and an owner-restricted page read the newest-first indexes with no sort, the total apart from the page; the indexes of earlier versions are dropped at start-up",
        .enabled(if: enabled, "needs STACKMOB_TEST_POSTGRESQL_URL"))
    func newestFirstIndexes() async throws {
        try await TestServer.withDataDirectory { directory in
            let configuration = TestServer.configuration(dataDirectory: directory)
            try await Self.createObject("/memo", ["title": "t"], configuration: configuration)
            // The layout of earlier versions.
            let before = try await TestServer.storage(configuration).open(.development, registry: SchemaRegistry(), indexes: [:])
            let old = try #require(before.engine as? PostgresStorageEngine)
            try await old.database.writeTransaction { connection in
                try await old.database.execute(#"DROP INDEX "_sm_newest_memo""#, on: connection)
                try await old.database.execute(#"DROP INDEX "_sm_newest_memo.sm_owner""#, on: connection)
                try await old.database.execute(#"CREATE INDEX "_sm_idx_memo.createddate" ON "memo" ("createddate")"#, on: connection)
                try await old.database.execute(#"CREATE INDEX "_sm_idx_memo.sm_owner" ON "memo" ("sm_owner")"#, on: connection)
            }
            let listedBefore = try await old.loadSchemaSettings().indexes["memo"]
            #expect(listedBefore == [["createddate"], ["sm_owner"]])
            try await old.close()

            let after = try await TestServer.storage(configuration).open(.development, registry: SchemaRegistry(), indexes: [:])
            let engine = try #require(after.engine as? PostgresStorageEngine)
            let listedAfter = try await engine.loadSchemaSettings().indexes["memo"]
            #expect(listedAfter == nil)
            let schema = try #require(try await engine.loadSchemaDefinitions().first { $0.name == "memo" })
            let queries = [
                ("_sm_newest_memo.sm_owner", ObjectQuery(filter: .access(.ownerIs("user/olivia")), limit: 20, countsTotal: true)),
                ("_sm_newest_memo", ObjectQuery(limit: 20)),
                ("_sm_newest_memo", ObjectQuery(order: [SortKey(field: "createddate", ascending: false)], offset: 40, limit: 20)),
            ]
            for (index, query) in queries {
                let plan = try await engine.queryPlan(schema, query: query).joined(separator: "\n")
                #expect(plan.contains("Index Scan using \"\(index)\"") || plan.contains("Index Scan using \(index) "), "\(plan)")
                #expect(!plan.contains("Sort"), "\(plan)")
                if query.countsTotal {
                    // The total is counted apart, once: a window over the page would read every
                    // matching row before the LIMIT.
                    #expect(!plan.contains("WindowAgg") && plan.contains("InitPlan"), "\(plan)")
                }
            }
            try await engine.close()
        }
    }

    @Test(
        "a page sorted by a configured index's second field reads the index in order with its ties, ascending and descending; indexes of earlier versions are made again at start-up",
        .enabled(if: enabled, "needs STACKMOB_TEST_POSTGRESQL_URL"))
    func sortedPagesReadFieldIndexes() async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.development.indexes = ["item": [["category", "price"]]]
            try await Self.createObject("/item", ["category": 7, "price": 1.5], configuration: configuration)
            // The layouts of earlier versions: PostgreSQL's default NULL order, then NULLs first
            // without the primary key; and enough rows, many sharing a price, that reading a whole
            // category or a whole run of ties and sorting it would cost more than the index.
            let before = try await TestServer.storage(configuration).open(.development, registry: SchemaRegistry(), indexes: [:])
            let old = try #require(before.engine as? PostgresStorageEngine)
            try await old.database.writeTransaction { connection in
                for statement in [
                    #"DROP INDEX "_sm_idx_item.category.price""#, #"CREATE INDEX "_sm_idx_item.category.price" ON item (category, price)"#,
                    #"DROP INDEX "_sm_idx_item.lastmoddate""#, #"CREATE INDEX "_sm_idx_item.lastmoddate" ON item (lastmoddate ASC NULLS FIRST)"#,
                    """
                    INSERT INTO item (item_id, createddate, lastmoddate, category, price)
                    SELECT 'i' || g, g, g / 500, g % 10, CASE WHEN g % 7 = 0 THEN NULL ELSE g / 200 END FROM generate_series(1, 20000) g
                    """,
                    "ANALYZE item",
                ] {
                    try await old.database.execute(statement, on: connection)
                }
            }
            let catalog = PostgresStatement(PostgresFieldIndex.catalogQuery)
            let outdated = try PostgresFieldIndex.all(in: try await old.database.execute(catalog)).filter(\.isOutdated).map(\.name)
            // The user schema's index, made by this version, is not.
            #expect(outdated == ["_sm_idx_item.category.price", "_sm_idx_item.lastmoddate"])
            try await old.close()

            let after = try await TestServer.storage(configuration).open(.development, registry: SchemaRegistry(), indexes: [:])
            let engine = try #require(after.engine as? PostgresStorageEngine)
            let rebuilt = try PostgresFieldIndex.all(in: try await engine.database.execute(catalog)).filter { $0.table == "item" }
            #expect(rebuilt.map(\.name) == ["_sm_idx_item.category.price", "_sm_idx_item.lastmoddate"] && !rebuilt.contains(where: \.isOutdated))
            #expect(try await engine.loadSchemaSettings().indexes["item"] == [["category", "price"]])
            let schema = try #require(try await engine.loadSchemaDefinitions().first { $0.name == "item" })
            let category = TypedFilter.condition(TypedCondition(field: "category", target: .scalar, operation: .equal(.integer(7))))
            for ascending in [true, false] {
                let query = ObjectQuery(filter: category, order: [SortKey(field: "price", ascending: ascending)], limit: 20, countsTotal: true)
                let plan = try await engine.queryPlan(schema, query: query).joined(separator: "\n")
                #expect(plan.contains("Index Scan") && plan.contains("_sm_idx_item.category.price"), "\(plan)")
                // Not even an incremental sort of each price's ties.
                #expect(!plan.contains("Sort"), "\(plan)")
                let sync = ObjectQuery(order: [SortKey(field: "lastmoddate", ascending: ascending)], limit: 20)
                let syncPlan = try await engine.queryPlan(schema, query: sync).joined(separator: "\n")
                #expect(syncPlan.contains("_sm_idx_item.lastmoddate") && !syncPlan.contains("Sort"), "\(syncPlan)")
            }
            try await engine.close()
        }
    }

    @Test(
        "a configured index of one field has a count index of the field alone, which totals read while pages read the ordered index; start-up adds it to an index of an earlier version",
        .enabled(if: enabled, "needs STACKMOB_TEST_POSTGRESQL_URL"))
    func totalsReadCountIndexes() async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.development.indexes = ["item": [["level"]]]
            try await Self.createObject("/item", ["level": 1], configuration: configuration)
            @Sendable func countIndexes(_ engine: PostgresStorageEngine) async throws -> [String] {
                let statement = PostgresStatement(
                    "SELECT indexname::text FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'item' AND indexname LIKE '\\_sm\\_cnt\\_%' ORDER BY 1")
                return try await engine.database.execute(statement).map { try $0.decode(String.self) }
            }
            // The layout of the version before: the ordered index alone. And enough rows, a
            // hundred values each repeated, that the planner weighs the two indexes' sizes.
            let before = try await TestServer.storage(configuration).open(.development, registry: SchemaRegistry(), indexes: [:])
            let old = try #require(before.engine as? PostgresStorageEngine)
            // The implied `lastmoddate` index has none.
            #expect(try await countIndexes(old) == ["_sm_cnt_item.level"])
            try await old.database.writeTransaction { connection in
                for statement in [
                    #"DROP INDEX "_sm_cnt_item.level""#,
                    "INSERT INTO item (item_id, createddate, lastmoddate, level) SELECT 'i' || g, g, g, g % 100 FROM generate_series(1, 20000) g",
                    "ANALYZE item",
                ] {
                    try await old.database.execute(statement, on: connection)
                }
            }
            #expect(try await countIndexes(old) == [])
            try await old.close()

            let after = try await TestServer.storage(configuration).open(.development, registry: SchemaRegistry(), indexes: [:])
            let engine = try #require(after.engine as? PostgresStorageEngine)
            #expect(try await countIndexes(engine) == ["_sm_cnt_item.level"])
            // Read back as the field's index, once.
            #expect(try await engine.loadSchemaSettings().indexes["item"] == [["level"]])
            let schema = try #require(try await engine.loadSchemaDefinitions().first { $0.name == "item" })
            let filters: [TypedCondition.Operation] = [.lessOrEqual(.integer(45)), .greaterThan(.integer(40)), .equal(.integer(7))]
            for operation in filters {
                let filter = TypedFilter.condition(TypedCondition(field: "level", target: .scalar, operation: operation))
                for ascending in [true, false] {
                    let query = ObjectQuery(filter: filter, order: [SortKey(field: "level", ascending: ascending)], limit: 20, countsTotal: true)
                    let plan = try await engine.queryPlan(schema, query: query)
                    let counted = plan.filter { $0.contains("_sm_cnt_item.level") }
                    let paged = plan.filter { $0.contains("_sm_idx_item.level") }
                    // An index-only scan once the visibility map is kept (autovacuum), a bitmap
                    // scan before: either way the count index.
                    #expect(counted.count == 1, "\(plan.joined(separator: "\n"))")
                    #expect(paged.count == 1 && paged[0].contains("Index Scan") && !plan.contains { $0.contains("Sort") }, "\(plan.joined(separator: "\n"))")
                }
            }
            try await engine.close()
        }
    }

    @Test(
        "a total without a filter is the table's kept row count, exact through concurrent creates on two instances, deletes, a bulk delete, an operator's insert, a long transaction and a fold; a table of an earlier version is counted until start-up installs its count",
        .enabled(if: enabled, "needs STACKMOB_TEST_POSTGRESQL_URL"))
    func keptRowCounts() async throws {
        try await TestServer.withDataDirectory { directory in
            let configuration = TestServer.configuration(dataDirectory: directory)
            let note = SchemaDefinition(name: "note", fields: ["rank": .integer])
            let open = { try await TestServer.storage(configuration).open(.development, registry: SchemaRegistry(), indexes: [:]) }
            let first = try #require(try await open().engine as? PostgresStorageEngine)
            let second = try #require(try await open().engine as? PostgresStorageEngine)
            try await first.write { try await $0.evolveSchema(from: nil, to: note) }
            @Sendable func total(_ engine: PostgresStorageEngine, filter: TypedFilter? = nil) async throws -> Int? {
                try await engine.read { try await $0.fetchObjects(note, query: ObjectQuery(filter: filter, limit: 5, countsTotal: true)).total }
            }
            @Sendable func counted(_ engine: PostgresStorageEngine) async throws -> Int64 {
                let rows = try await engine.database.execute(PostgresStatement("SELECT count(*) FROM note"))
                return try #require(rows.first).decode(Int64.self)
            }
            @Sendable func add(_ engine: PostgresStorageEngine, _ rank: Int) async throws {
                try await engine.write { writer in
                    try await writer.insert(["note_id": .string("n\(rank)"), "createddate": 1, "lastmoddate": 1, "rank": .integer(Int64(rank))], into: note)
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for rank in 0..<200 { group.addTask { try await add(rank % 2 == 0 ? first : second, rank) } }
                try await group.waitForAll()
            }
            #expect(try await total(first) == 200)
            _ = try await second.write { try await $0.delete(note, id: "n70") }
            let lowRanks = TypedFilter.condition(TypedCondition(field: "rank", target: .scalar, operation: .lessThan(50)))
            _ = try await first.write { try await $0.deleteObjects(note, matching: lowRanks, returning: nil) }
            // An operator's insert, with another search_path, is counted in this schema.
            try await first.database.writeTransaction { connection in
                let schemaName = try #require(try await first.database.execute(PostgresStatement("SELECT current_schema()"), on: connection).first)
                    .decode(String.self)
                try await first.database.execute("SET LOCAL search_path = public", on: connection)
                try await first.database.execute(
                    "INSERT INTO \"\(schemaName)\".note (note_id, createddate, lastmoddate, rank) VALUES ('by-hand', 1, 1, 500)", on: connection)
            }
            _ = try await second.write { try await $0.delete(note, id: "n71") }
            #expect(try await counted(first) == 149)
            #expect(try await total(second) == 149)
            // A long transaction appends its changes, one row per statement, and updates no
            // count: updating one row per insert made each update walk the versions before it.
            let appended = try await first.write { writer in
                let transaction = try #require(writer as? PostgresTransaction)
                for rank in 2_000..<2_300 {
                    try await writer.insert(["note_id": .string("n\(rank)"), "createddate": 1, "lastmoddate": 1, "rank": .integer(Int64(rank))], into: note)
                }
                _ = try await writer.deleteObjects(note, matching: TypedFilter.condition(TypedCondition(field: "rank", target: .scalar, operation: .greaterThan(2_199))), returning: nil)
                let ours = PostgresStatement("SELECT count(*) FROM _sm_row_count_changes WHERE xmin::text::bigint = txid_current() % 4294967296")
                let rows = try await transaction.run(ours)
                return try #require(rows.first).decode(Int64.self)
            }
            #expect(appended == 301)
            #expect(try await total(second) == 349)
            // Folded (a round of the instances' own folding may hold the lock for a moment).
            var left: Int64 = -1
            for _ in 0..<20 where left != 0 {
                try await PostgresRowCounts.fold(second.database)
                let rows = try await first.database.execute(PostgresStatement("SELECT count(*) FROM _sm_row_count_changes"))
                left = try #require(rows.first).decode(Int64.self)
                if left != 0 { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(left == 0)
            #expect(try await total(first) == 349)
            #expect(try await counted(first) == 349)
            // The kept count is what answers: a count changed by hand shows in the total.
            try await first.database.execute(PostgresStatement("UPDATE _sm_row_counts SET row_count = row_count + 1000 WHERE table_name = 'note'"))
            #expect(try await total(first) == 1349)
            #expect(try await total(first, filter: lowRanks) == 0)
            // As an earlier version left it: no triggers, no count. Counted, then installed.
            try await first.database.writeTransaction { connection in
                for statement in [
                    "DROP TRIGGER _sm_count_inserted ON note", "DROP TRIGGER _sm_count_deleted ON note", "DELETE FROM _sm_row_counts",
                    "DELETE FROM _sm_row_count_changes",
                ] {
                    try await first.database.execute(statement, on: connection)
                }
            }
            try await add(first, 1_000)
            #expect(try await total(first) == 350)
            try await first.close()
            try await second.close()
            let restarted = try #require(try await open().engine as? PostgresStorageEngine)
            let kept = try await restarted.database.execute(PostgresStatement("SELECT sum(row_count)::bigint FROM _sm_row_counts WHERE table_name = 'note'"))
            #expect(try kept.first?.decode(Int64.self) == 350)
            try await add(restarted, 1_001)
            #expect(try await total(restarted) == 351)
            try await restarted.close()
        }
    }

    @Test(
        "rows come back as objects with their members in key order, whatever the order of the table's columns, NULL columns left out, each type as written, and a page's total and distances beside them",
        .enabled(if: enabled, "needs STACKMOB_TEST_POSTGRESQL_URL"))
    func rowsAsObjects() async throws {
        try await Self.withEngine { engine in
            // Each step adds its column at the table's end: the columns' order is not their names'.
            var gadget = SchemaDefinition(name: "gadget", fields: ["zeta": .integer])
            try await engine.write { [gadget] in try await $0.evolveSchema(from: nil, to: gadget) }
            let added: [(String, FieldType)] = [("alpha", .float), ("mid", .boolean), ("tags", .array(.string)), ("loc", .geopoint), ("b_name", .string)]
            for (name, type) in added {
                let next = SchemaDefinition(name: "gadget", fields: gadget.fields.merging([name: type]) { $1 })
                try await engine.write { [gadget] in try await $0.evolveSchema(from: gadget, to: next) }
                gadget = next
            }
            let full: JSONObject = [
                "gadget_id": "g1", "createddate": 1, "lastmoddate": 2, "zeta": 7, "alpha": 1.5, "mid": true, "tags": ["x", "y"],
                "loc": ["lat": 1.25, "lon": 2.5], "b_name": "héllo",
            ]
            let sparse: JSONObject = ["gadget_id": "g2", "createddate": 3, "lastmoddate": 4, "zeta": -3, "mid": false]
            try await engine.write { [gadget] writer in
                try await writer.insert(full, into: gadget)
                try await writer.insert(sparse, into: gadget)
            }
            func inKeyOrder(_ object: JSONObject) -> Bool { Array(object.keys) == object.keys.sorted() }

            let one = try await engine.readByKey { [gadget] in try await $0.fetchObject(gadget, id: "g1") }
            #expect(one == full)
            #expect(one.map(inKeyOrder) == true, "\(String(describing: one))")
            let both = try await engine.read { [gadget] in try await $0.fetchObjects(gadget, ids: ["g1", "g2"]) }
            #expect(Set(both.compactMap { $0["gadget_id"]?.stringValue }) == ["g1", "g2"])
            for object in both {
                #expect(object == (object["gadget_id"] == "g1" ? full : sparse))
                #expect(inKeyOrder(object), "\(object)")
            }
            let page = try await engine.read { [gadget] in
                try await $0.fetchObjects(gadget, query: ObjectQuery(order: [SortKey(field: "zeta", ascending: true)], limit: 5, countsTotal: true))
            }
            #expect(page.total == 2)
            #expect(page.objects == [sparse, full])
            #expect(page.objects.allSatisfy(inKeyOrder))
            let near = TypedFilter.condition(
                TypedCondition(field: "loc", target: .scalar, operation: .near(GeoPoint(lat: 1.25, lon: 2.5), maxDistance: 0.1)))
            let nearby = try await engine.read { [gadget] in try await $0.fetchObjects(gadget, query: ObjectQuery(filter: near, limit: 5, countsTotal: true)) }
            #expect(nearby.total == 1)
            let found = try #require(nearby.objects.first)
            var point = try #require(found["loc"]?.objectValue)
            #expect(point["distance"]?.numberValue == 0)
            point["distance"] = nil
            var withoutDistance = found
            withoutDistance["loc"] = .object(point)
            #expect(withoutDistance == full)
            #expect(inKeyOrder(found), "\(found)")
        }
    }

    @Test("index names past PostgreSQL's 63 bytes stay distinct and are read back by their columns", .enabled(if: enabled, "needs STACKMOB_TEST_POSTGRESQL_URL"))
    func longIndexNames() async throws {
        // Both names share their first 63 bytes: cut as PostgreSQL cuts them, they would be one
        // index, and the second CREATE INDEX IF NOT EXISTS would silently do nothing.
        let first = ["recorded_at_the_weather_station_in_local_time", "temperature_in_degrees_celsius"]
        let second = ["recorded_at_the_weather_station_in_local_time", "temperature_in_degrees_fahrenheit"]
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.development.indexes = ["measurement": [first, second]]
            try await Self.createObject("/measurement", [first[0]: 1, first[1]: 20.5, second[1]: 68.9], configuration: configuration)
            let storage = try await TestServer.storage(configuration).open(.development, registry: SchemaRegistry(), indexes: [:])
            let indexes = try await storage.engine.loadSchemaSettings().indexes["measurement"] ?? []
            #expect(indexes.contains(first), "\(indexes)")
            #expect(indexes.contains(second), "\(indexes)")
            try await storage.engine.close()
        }
    }

    @Test(
        "a write that widens a table whose row another write waits on runs again with the table locked first: no deadlock",
        .enabled(if: enabled, "needs STACKMOB_TEST_POSTGRESQL_URL"))
    func wideningUnderRowLocks() async throws {
        try await TestServer.withDataDirectory { directory in
            let configuration = TestServer.configuration(dataDirectory: directory)
            let (logger, log) = CapturingLogHandler.logger()
            let storage = try await StorageSelection.provider(for: configuration, logger: logger)
                .open(.development, registry: SchemaRegistry(), indexes: [:])
            let engine = storage.engine
            let narrow = SchemaDefinition(name: "counter", fields: ["likes": .integer])
            let wide = SchemaDefinition(name: "counter", fields: ["likes": .integer, "note": .string])
            try await engine.write { writer in
                try await writer.evolveSchema(from: nil, to: narrow)
                try await writer.insert(["counter_id": "c", "createddate": 1, "lastmoddate": 1, "likes": 0], into: narrow)
            }
            let widenerRuns = Mutex(0)
            let (locked, lockedSignal) = AsyncStream.makeStream(of: Void.self)
            // The widener locks the row, waits until the incrementer queues behind it, then adds
            // a column: the incrementer's lock on the table and the widener's on the row are the
            // two halves of a deadlock.
            async let widened: Void = engine.write { writer in
                let run = widenerRuns.withLock { $0 += 1; return $0 }
                _ = try await writer.fetchObject(narrow, id: "c")
                if run == 1 {
                    lockedSignal.yield()
                    let transaction = try #require(writer as? PostgresTransaction)
                    let blocked = PostgresStatement("SELECT count(*) FROM pg_locks WHERE NOT granted AND pg_backend_pid() = ANY(pg_blocking_pids(pid))")
                    while try await transaction.run(blocked).first?.decode(Int64.self) == 0 {
                        try await Task.sleep(for: .milliseconds(10))
                    }
                }
                try await writer.evolveSchema(from: narrow, to: wide)
                try await writer.update(wide, id: "c", changes: ["note": "widened"])
            }
            for await _ in locked { break }
            try await engine.write { writer in
                let likes = try #require(try await writer.fetchObject(narrow, id: "c")?["likes"]?.integerValue)
                try await writer.update(narrow, id: "c", changes: ["likes": .integer(likes + 1)])
            }
            try await widened
            let row = try await engine.read { reader in try await reader.fetchObject(wide, id: "c") }
            #expect(row?["likes"] == 1)
            #expect(row?["note"] == "widened")
            // The contention happened, and was settled by running the widener again, not by
            // PostgreSQL's deadlock detector.
            #expect(widenerRuns.withLock { $0 } == 2)
            let rolledBack = log.all.filter { $0.fullText.contains("rolled a write transaction back") }
            #expect(rolledBack.isEmpty, "\(rolledBack.map(\.fullText))")
            try await engine.close()
        }
    }

    @Test(
        "a read by key or of one statement runs outside a transaction; a second statement runs the read again in a snapshot",
        .enabled(if: enabled, "needs STACKMOB_TEST_POSTGRESQL_URL"))
    func singleStatementReads() async throws {
        try await Self.withEngine { engine in
            // Outside a transaction block a statement runs at the session's default isolation;
            // the engine's read transactions are REPEATABLE READ.
            let isolation = PostgresStatement("SELECT current_setting('transaction_isolation')")
            @Sendable func isolationLevel(_ reader: any StorageReader) async throws -> String {
                try await #require((reader as? PostgresTransaction)?.run(isolation).first).decode(String.self)
            }
            #expect(try await engine.readByKey { try await isolationLevel($0) } == "read committed")
            #expect(try await engine.readOneStatement { try await isolationLevel($0) } == "read committed")
            #expect(try await engine.read { try await isolationLevel($0) } == "repeatable read")

            let runs = Mutex(0)
            let both = try await engine.readByKey { reader in
                runs.withLock { $0 += 1 }
                return [try await isolationLevel(reader), try await isolationLevel(reader)]
            }
            #expect(both == ["repeatable read", "repeatable read"])
            #expect(runs.withLock { $0 } == 2)

            // A body that swallows the refusal still gets its answer from the snapshot.
            let swallowed = try await engine.readByKey { reader in
                let first = try await isolationLevel(reader)
                let second = (try? await isolationLevel(reader)) ?? "refused"
                return [first, second]
            }
            #expect(swallowed == ["repeatable read", "repeatable read"])
        }
    }

    #if os(Linux)
    @Test(
        "reads one after another hold no memory per request: the pool arms no timer when a connection goes idle",
        .enabled(if: enabled, "needs STACKMOB_TEST_POSTGRESQL_URL"))
    func noMemoryPerRequest() async throws {
        // One client at a time, so that every request takes an idle connection and leaves it
        // idle again; a timer per release (postgres-nio's keep-alive and idle timeout) held
        // about 3 KiB per request for 30 to 60 s.
        let url = try #require(TestServer.postgreSQLURL)
        let settings: @Sendable (String) -> [String: String] = { directory in
            [
                "STACKMOB_STORAGE__ENGINE": "postgresql",
                "STACKMOB_STORAGE__POSTGRESQL__URL": url,
                "STACKMOB_STORAGE__POSTGRESQL__POOL_SIZE": "2",
                "STACKMOB_STORAGE__POSTGRESQL__SCHEMA_PREFIX": TestServer.schemaPrefix(for: directory),
            ]
        }
        try await SpawnedServer.with(settings: settings) { client, server in
            let created = try await client.post("/note", ["text": "kept"])
            let id = try #require(created.object?["note_id"]?.stringValue)
            for _ in 0..<500 { #expect(try await client.get("/note/\(id)").status == .ok) }
            let before = try server.anonymousResidentKiB()
            let started = ContinuousClock.now
            for _ in 0..<3_000 { _ = try await client.get("/note/\(id)") }
            #expect(try await client.get("/note/\(id)").status == .ok)
            let grown = try server.anonymousResidentKiB() - before
            #expect(grown < 3 * 1024, "the server's heap grew by \(grown) KiB over 3,000 reads")
            // A timer per release (about 3 KiB, armed for 60 s) would hold what the last 60 s of
            // reads armed: at 25 reads a second or more that is over 4 MiB, which the check above
            // catches however long the loop takes. Slower, the test could pass with the timers
            // back. (A bound on the loop's duration failed on a busy CI machine: 3,000 reads took
            // 62–72 s there with the whole suite running, 13 s alone.)
            let perSecond = 3_000 / ((ContinuousClock.now - started) / .seconds(1))
            #expect(perSecond >= 25, "too slow to show anything: \(Int(perSecond)) reads a second")
        }
    }
    #endif

    @Test("an unreachable database stops start-up with a clear message and exit 69, not a hang")
    func unreachable() async throws {
        // Connections to the port are refused, and the pool would retry forever.
        try await TestServer.withDataDirectory { directory in try await RefusedPort.with { port in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let server = try ServerProcess(
                arguments: ["serve", "--port", "0", "--data-dir", directory], directory: directory,
                environment: [
                    "STACKMOB_STORAGE__ENGINE": "postgresql",
                    "STACKMOB_STORAGE__POSTGRESQL__URL": "postgres://app:secret-password@127.0.0.1:\(port)/app",
                    "STACKMOB_STORAGE__POSTGRESQL__CONNECT_TIMEOUT_SECONDS": "2",
                    "STACKMOB_PUSH__PORT": "0",
                ])
            #expect(await server.waitForExit(timeout: .seconds(30)) == 69)
            #expect(server.log.contains("did not answer within 2 s"), "\(server.log)")
            #expect(!server.log.contains("secret-password"))
        } }
    }
}
