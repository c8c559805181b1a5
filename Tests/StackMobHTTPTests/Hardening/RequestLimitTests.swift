import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// Requests too big for the database to take (docs/operations.md, "Limits"): each once came back as
/// a 500 from SQLite; now each is a 400 naming the documented limit, checked before any SQL is
/// built.
@Suite("Query, schema and name limits")
struct RequestLimitTests {
    @Test("filter terms, [orN] groups, [in] values, sort keys and selected fields are bounded")
    func queryLimits() async throws {
        try await TestServer.run { client in
            _ = try await client.create("thing", ["name": "a", "rank": 1])
            let cases: [(String, [String: String], String)] = [
                ("/thing?" + (0..<1_000).map { "name[ne]=x\($0)" }.joined(separator: "&"), [:], "filter parameters"),
                ("/thing?" + (0..<1_000).map { "[or\($0)].name=x&[or\($0)].rank=\($0)" }.joined(separator: "&"), [:], "filter parameters"),
                ("/thing?" + (0..<21).map { "[or\($0)].name=x" }.joined(separator: "&"), [:], "[orN] groups"),
                ("/thing?name[in]=" + (0...1_000).map { "v\($0)" }.joined(separator: ","), [:], "values in 'name[in]'"),
                ("/thing", ["X-StackMob-OrderBy": (0..<2_000).map { _ in "name:asc" }.joined(separator: ",")], "X-StackMob-OrderBy keys"),
                ("/thing", ["X-StackMob-Select": (0..<2_000).map { "f\($0)" }.joined(separator: ",")], "X-StackMob-Select fields"),
            ]
            for (path, headers, what) in cases {
                let refused = try await client.get(path, headers: headers)
                #expect(refused.status == .badRequest, "\(what): \(refused.text)")
                #expect(refused.error?.hasPrefix("Too many \(what): a query may have at most") == true, "\(refused.text)")
            }
            // At the limits, the queries run.
            let widest = "/thing?" + (0..<20).map { "[or\($0)].name=a" }.joined(separator: "&") + "&"
                + (0..<80).map { "rank[ne]=\($0 + 2)" }.joined(separator: "&")
            #expect(try await client.get(widest).array?.count == 1)
            let longList = "/thing?name[in]=" + (0..<1_000).map { $0 == 999 ? "a" : "v\($0)" }.joined(separator: ",")
            #expect(try await client.get(longList).array?.count == 1)
            let tenKeys = (0..<10).map { $0 % 2 == 0 ? "name:asc" : "rank:desc" }.joined(separator: ",")
            #expect(try await client.get("/thing", headers: ["X-StackMob-OrderBy": tenKeys]).status == .ok)
            // The same limits hold for DELETE by query.
            let delete = try await client.delete("/thing?" + (0..<101).map { "name=x\($0)" }.joined(separator: "&"))
            #expect(delete.status == .badRequest)
        }
    }

    @Test("schema names starting with sqlite_ are reserved")
    func sqlitePrefixReserved() async throws {
        try await TestServer.run { client in
            for name in ["sqlite_x", "SQLITE_master", "sqlite_sequence"] {
                let refused = try await client.post("/\(name)", ["a": 1])
                #expect(refused.status == .badRequest, "\(name): \(refused.text)")
                #expect(refused.error == "'\(name.lowercased())' is reserved by the API and cannot be a schema name")
            }
            #expect(try await client.post("/sqlitex", ["a": 1]).status == .created)
        }
    }

    @Test("a schema grows to at most 500 fields, in one request or over several")
    func fieldLimit() async throws {
        try await TestServer.run { client in
            var wide = JSONObject()
            for index in 0..<2_000 { wide["f\(index)"] = .integer(Int64(index)) }
            let refused = try await client.post("/wide", .object(wide))
            #expect(refused.status == .badRequest, "\(refused.text)")
            #expect(refused.error == "Schema 'wide' cannot have more than 500 fields")

            var first = JSONObject()
            for index in 0..<300 { first["a\(index)"] = .integer(1) }
            #expect(try await client.post("/grown", .object(first)).status == .created)
            var second = JSONObject()
            for index in 0..<200 { second["b\(index)"] = .integer(1) }
            #expect(try await client.post("/grown", .object(second)).status == .created)
            let past = try await client.post("/grown", ["c0": 1])
            #expect(past.status == .badRequest, "\(past.text)")
            // Existing fields can still be written.
            #expect(try await client.post("/grown", ["a0": 2, "b0": 3]).status == .created)
        }
    }
}
