import Foundation
import GRDB
import StackMobCore
import StackMobSQLite
import Testing

/// Queries must use indexes: checked with SQLite's own query plan.
@Suite("Indexes and query plans")
struct IndexTests {
    private func withEngine<T>(indexes: [String: [[String]]], in directory: String, _ body: (SQLiteStorageEngine, Datastore) async throws -> T) async throws -> T {
        let registry = SchemaRegistry()
        let engine = try await SQLiteStorageEngine.open(path: "\(directory)/test.sqlite", durability: .normal, registry: registry, indexes: indexes)
        return try await TemporaryDatabase.closing(engine) {
            let datastore = try await Datastore.open(
                storage: engine, registry: registry, inferenceEnabled: true, userSchemas: [], passwordHasher: PasswordHasher(rounds: 1))
            return try await body(engine, datastore)
        }
    }

    private func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("index-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private let categoryFilter = TypedFilter.condition(TypedCondition(field: "category", target: .scalar, operation: .equal(7)))

    @Test("a configured index is created with the field and used by a filtered, sorted page")
    func configuredIndex() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withEngine(indexes: ["item": [["category"]]], in: directory) { engine, datastore in
            _ = try await datastore.create(["category": 7, "price": 1.5], in: "item", caller: .anonymous)
            let schema = try #require(datastore.registry.definition(named: "item"))
            let page = ObjectQuery(filter: categoryFilter, order: [SortKey(field: "price", ascending: true)], limit: 20)
            let plan = try await engine.queryPlan(schema, query: page).joined(separator: "\n")
            #expect(plan.contains("USING INDEX _sm_idx_item.category"), "\(plan)")
            let count = ObjectQuery(filter: categoryFilter, limit: 1, countsTotal: true)
            let countPlan = try await engine.queryPlan(schema, query: count).joined(separator: "\n")
            #expect(countPlan.contains("USING INDEX _sm_idx_item.category"), "\(countPlan)")
        }
    }

    @Test("an OR group's total is counted branch by branch from the index when every branch has one, else in one count")
    func orGroupTotals() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func range(_ field: String) -> TypedFilter {
            .all([.any([
                .condition(TypedCondition(field: field, target: .scalar, operation: .lessThan(3))),
                .condition(TypedCondition(field: field, target: .scalar, operation: .greaterThan(5))),
            ])])
        }
        try await withEngine(indexes: ["item": [["level"]]], in: directory) { engine, datastore in
            for i in 0..<40 {
                _ = try await datastore.create(["level": .integer(Int64(i % 10)), "grade": .integer(Int64(i % 10))], in: "item", caller: .anonymous)
            }
            let schema = try #require(datastore.registry.definition(named: "item"))
            let indexed = try await engine.queryPlan(schema, query: ObjectQuery(filter: range("level"), limit: 20, countsTotal: true)).joined(separator: "\n")
            // Gathering both branches' rows, removing duplicates and looking each up cost SQLite
            // several times the two index walks (docs/benchmarks.md, "Filter shapes").
            #expect(!indexed.contains("MULTI-INDEX OR") && indexed.contains("COVERING INDEX _sm_idx_item.level (level<?)"), "\(indexed)")
            let unindexed = try await engine.queryPlan(schema, query: ObjectQuery(filter: range("grade"), limit: 20, countsTotal: true))
            #expect(unindexed.filter { $0.contains("SCAN item") }.count == 2, "one scan for the page, one for the total: \(unindexed)")
            for field in ["level", "grade"] {
                let query = ObjectQuery(filter: range(field), limit: 1, countsTotal: true)
                let page = try await engine.read { try await $0.fetchObjects(schema, query: query) }
                #expect(page.total == 28, "\(field): \(String(describing: page.total))")
            }
        }
    }

    @Test("without the configuration the same filter scans; configuring it later creates the index at start-up")
    func indexAddedLater() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let page = ObjectQuery(filter: categoryFilter, limit: 20)
        try await withEngine(indexes: [:], in: directory) { engine, datastore in
            _ = try await datastore.create(["category": 7], in: "item", caller: .anonymous)
            let schema = try #require(datastore.registry.definition(named: "item"))
            let plan = try await engine.queryPlan(schema, query: page).joined(separator: "\n")
            #expect(!plan.contains("_sm_idx_item.category"), "\(plan)")
        }
        try await withEngine(indexes: ["item": [["category"]]], in: directory) { engine, datastore in
            let schema = try #require(datastore.registry.definition(named: "item"))
            let plan = try await engine.queryPlan(schema, query: page).joined(separator: "\n")
            #expect(plan.contains("_sm_idx_item.category"), "\(plan)")
        }
    }

    @Test("a composite index serves a filter sorted by a second field, and counts read only the index")
    func compositeIndex() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withEngine(indexes: ["item": [["category", "price"]]], in: directory) { engine, datastore in
            _ = try await datastore.create(["category": 7], in: "item", caller: .anonymous)
            // The index needs both fields: it appears with the write that adds the second.
            _ = try await datastore.create(["category": 7, "price": 2.5], in: "item", caller: .anonymous)
            let schema = try #require(datastore.registry.definition(named: "item"))
            let page = ObjectQuery(filter: categoryFilter, order: [SortKey(field: "price", ascending: true)], limit: 20, countsTotal: true)
            let plan = try await engine.queryPlan(schema, query: page)
            #expect(plan.contains { $0.contains("USING INDEX _sm_idx_item.category.price") }, "\(plan)")
            #expect(plan.contains { $0.contains("USING COVERING INDEX") }, "\(plan)")
            // No full sort: at most SQLite's partial sort of price ties by primary key.
            #expect(!plan.contains { $0.contains("TEMP B-TREE FOR ORDER BY") }, "\(plan)")
            let result = try await datastore.query(in: "item", QueryRequest(filter: try QueryParser.parse([("category", "7")]), range: ObjectRange(start: 0, end: 0)), caller: .anonymous)
            #expect(result.total == 2)
        }
    }

    @Test("the default order (newest first, ties by primary key) and an explicit createddate:desc read the newest-first index in order, with no sort")
    func defaultOrder() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withEngine(indexes: [:], in: directory) { engine, datastore in
            _ = try await datastore.create(["n": 1], in: "item", caller: .anonymous)
            let schema = try #require(datastore.registry.definition(named: "item"))
            for order in [[], [SortKey(field: "createddate", ascending: false)]] {
                for window in [ObjectQuery(order: order, limit: 20), ObjectQuery(order: order, offset: 5000, limit: 20, countsTotal: true)] {
                    let plan = try await engine.queryPlan(schema, query: window).joined(separator: "\n")
                    #expect(plan.contains("SCAN item USING INDEX _sm_newest_item"), "\(plan)")
                    #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
                }
            }
        }
    }

    /// The layout of earlier versions: `createddate` alone and `sm_owner` alone, or `createddate`
    /// alone and `(sm_owner, createddate)`.
    private static let earlierLayouts: [[[String]]] = [[["createddate"], ["sm_owner"]], [["createddate"], ["sm_owner", "createddate"]]]

    @Test("a table of an earlier version gets its newest-first indexes at start-up and loses the ones they replace, unless configured",
          arguments: earlierLayouts)
    func newestFirstUpgrade(layout: [[String]]) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let owned = ObjectQuery(filter: .access(.ownerIs("user/olivia")), limit: 20, countsTotal: true)
        try await withEngine(indexes: [:], in: directory) { _, datastore in
            _ = try await datastore.create(["n": 1], in: "item", caller: .user(schema: "user", id: "olivia"))
        }
        // The earlier layout, written with the SQLite library itself.
        let database = try DatabaseQueue(path: "\(directory)/test.sqlite")
        try await database.write { db in
            try db.execute(sql: #"DROP INDEX "_sm_newest_item""#)
            try db.execute(sql: #"DROP INDEX "_sm_newest_item.sm_owner""#)
            for fields in layout {
                try db.execute(sql: #"CREATE INDEX "\#(IndexPlan.name(schema: "item", fields: fields))" ON item (\#(fields.joined(separator: ", ")))"#)
            }
        }
        try database.close()
        try await withEngine(indexes: [:], in: directory) { engine, datastore in
            let schema = try #require(datastore.registry.definition(named: "item"))
            let plan = try await engine.queryPlan(schema, query: owned).joined(separator: "\n")
            #expect(plan.contains("USING INDEX _sm_newest_item.sm_owner"), "\(plan)")
            #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
            let listed = try await engine.storedIndexes()["item"]
            #expect(listed == nil)
        }
        let remaining = try DatabaseQueue(path: "\(directory)/test.sqlite")
        let names = try await remaining.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'item' AND name LIKE '\\_sm\\_%' ESCAPE '\\'")
        }
        try remaining.close()
        #expect(Set(names) == ["_sm_idx_item.lastmoddate", "_sm_newest_item", "_sm_newest_item.sm_owner"])
        // Configured, an index of the earlier layout stays and is listed as the app's own.
        let configured = try await withEngine(indexes: ["item": [layout[1]]], in: directory) { engine, _ in
            try await engine.storedIndexes()["item"]
        }
        #expect(configured == [layout[1]])
    }

    private static func condition(_ field: String, _ operation: TypedCondition.Operation) -> TypedFilter {
        .condition(TypedCondition(field: field, target: .scalar, operation: operation))
    }

    /// The pages the SDKs ask for most: a filter on an indexed field, sorted by it or, on a
    /// composite index, by the next field, in either direction.
    private static let sortedPages: [(TypedFilter?, String)] = [
        (condition("level", .equal(5)), "level"), (condition("level", .greaterThan(5)), "level"), (condition("level", .lessOrEqual(5)), "level"),
        (condition("category", .equal(7)), "price"), (nil, "lastmoddate"),
    ]

    /// Each plan of `sortedPages`, both directions, with the total.
    private func sortedPagePlans(_ engine: SQLiteStorageEngine, _ schema: SchemaDefinition) async throws -> [String] {
        var plans: [String] = []
        for (filter, field) in Self.sortedPages {
            for ascending in [true, false] {
                let query = ObjectQuery(filter: filter, order: [SortKey(field: field, ascending: ascending)], limit: 20, countsTotal: true)
                plans.append("\(field) \(ascending ? "asc" : "desc"):\n" + (try await engine.queryPlan(schema, query: query)).joined(separator: "\n"))
            }
        }
        return plans
    }

    @Test("a page sorted by an indexed field reads the index in order, ties included, in either direction: no sort, not even of each run of ties")
    func sortedPagesReadIndexesWithTheirTies() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withEngine(indexes: ["item": [["level"], ["category", "price"]]], in: directory) { engine, datastore in
            _ = try await datastore.create(["level": 5, "category": 7, "price": 1.5], in: "item", caller: .anonymous)
            let schema = try #require(datastore.registry.definition(named: "item"))
            for plan in try await sortedPagePlans(engine, schema) {
                #expect(plan.contains("USING INDEX _sm_idx_item.") && !plan.contains("TEMP B-TREE"), "\(plan)")
            }
        }
    }

    @Test("field indexes of earlier versions, without the primary key, are made again with it at start-up, once")
    func fieldIndexUpgrade() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withEngine(indexes: ["item": [["level"], ["category", "price"]]], in: directory) { _, datastore in
            _ = try await datastore.create(["level": 5, "category": 7, "price": 1.5], in: "item", caller: .anonymous)
        }
        let database = try DatabaseQueue(path: "\(directory)/test.sqlite")
        try await database.write { db in
            for fields in [["level"], ["category", "price"], ["lastmoddate"]] {
                let name = IndexPlan.name(schema: "item", fields: fields)
                try db.execute(sql: #"DROP INDEX "\#(name)""#)
                try db.execute(sql: #"CREATE INDEX "\#(name)" ON item (\#(fields.joined(separator: ", ")))"#)
            }
        }
        try database.close()
        func columns() async throws -> [String: [String]] {
            let database = try DatabaseQueue(path: "\(directory)/test.sqlite")
            defer { try? database.close() }
            return try await database.read { db in
                Dictionary(uniqueKeysWithValues: try db.indexes(on: "item").filter { $0.name.hasPrefix("_sm_idx_") }.map { ($0.name, $0.columns) })
            }
        }
        /// Where each index begins in the file: an index made again begins elsewhere.
        func rootPages() async throws -> [String: Int] {
            let database = try DatabaseQueue(path: "\(directory)/test.sqlite")
            defer { try? database.close() }
            return try await database.read { db in
                Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT name, rootpage FROM sqlite_master WHERE name LIKE '\\_sm\\_idx\\_%' ESCAPE '\\'").map { ($0["name"], $0["rootpage"]) })
            }
        }
        #expect(try await columns()["_sm_idx_item.level"] == ["level"])
        var pages: [[String: Int]] = []
        for _ in 0..<2 {
            try await withEngine(indexes: ["item": [["level"], ["category", "price"]]], in: directory) { engine, datastore in
                let schema = try #require(datastore.registry.definition(named: "item"))
                for plan in try await sortedPagePlans(engine, schema) {
                    #expect(plan.contains("USING INDEX _sm_idx_item.") && !plan.contains("TEMP B-TREE"), "\(plan)")
                }
                #expect(try await engine.storedIndexes()["item"] == [["category", "price"], ["level"]])
            }
            #expect(try await columns() == [
                "_sm_idx_item.level": ["level", "item_id"], "_sm_idx_item.category.price": ["category", "price", "item_id"],
                "_sm_idx_item.lastmoddate": ["lastmoddate", "item_id"],
            ])
            pages.append(try await rootPages())
        }
        #expect(pages[0].count == 3 && pages[0] == pages[1], "made again at the second start: \(pages)")
    }

    @Test("geo queries read through the R*Tree and never scan the schema", arguments: [
        TypedCondition.Operation.withinRadius(GeoPoint(lat: 0, lon: 0), radius: 0.01),
        .withinBox(southWest: GeoPoint(lat: 0, lon: 0), northEast: GeoPoint(lat: 1, lon: 1)),
        .near(GeoPoint(lat: 0, lon: 0), maxDistance: 0.01),
        .near(GeoPoint(lat: 0, lon: 0), maxDistance: nil),
    ])
    func geoPlans(operation: TypedCondition.Operation) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withEngine(indexes: [:], in: directory) { engine, datastore in
            _ = try await datastore.create(["loc": ["lat": 0.5, "lon": 0.5]], in: "place", caller: .anonymous)
            let schema = try #require(datastore.registry.definition(named: "place"))
            let filter = TypedFilter.condition(TypedCondition(field: "loc", target: .scalar, operation: operation))
            let lines = try await engine.queryPlan(schema, query: ObjectQuery(filter: filter, limit: 20, countsTotal: true))
            #expect(lines.contains { $0.contains("_sm_geo_place VIRTUAL TABLE") }, "\(lines)")
            #expect(!lines.contains { $0.hasPrefix("SCAN place") }, "\(lines)")
        }
    }
}
