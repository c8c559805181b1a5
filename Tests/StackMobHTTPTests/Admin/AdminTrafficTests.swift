import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// The admin API's traffic figures and last requests (docs/operations.md, "Admin API"), fed by
/// real requests to the API port.
@Suite("Admin API: traffic per minute and the last requests")
struct AdminTrafficTests {
    static func integer(_ value: JSONValue?) -> Int64? {
        if case .integer(let number) = value { return number }
        return nil
    }

    static func isNumber(_ value: JSONValue?) -> Bool {
        switch value {
        case .integer, .float: true
        default: false
        }
    }

    @Test("requests per minute count 4xx and 5xx apart and carry p50/p99; an hour of minutes merges into the day's hours")
    func periods() async throws {
        let clock = ManualClock()
        try await AdminAPITests.run(clock: clock) { client in
            let (token, _, _) = try await AdminAPITests.signIn(client)
            let bearer = ["Authorization": "Bearer \(token)"]
            _ = try await client.create("todo", ["title": "one"])
            for _ in 0..<3 { #expect(try await client.get("/todo/no-such-id").status == .notFound) }
            clock.advance(by: 60_000)
            _ = try await client.get("/todo")

            let hour = try await client.get("/_admin/environments/development/traffic?window=hour", headers: bearer)
            #expect(hour.status == .ok, "\(hour.text)")
            let periods = try #require(hour.object?["periods"]?.arrayValue)
            #expect(periods.count == 60)
            let last = try #require(periods.last?.objectValue), before = try #require(periods.dropLast().last?.objectValue)
            #expect(last["requests"] == .integer(1) && last["client_errors"] == .integer(0))
            #expect(before["requests"] == .integer(4) && before["client_errors"] == .integer(3) && before["server_errors"] == .integer(0))
            #expect(Self.isNumber(before["p50_ms"]) && Self.isNumber(before["p99_ms"]), "\(before)")
            #expect((periods.first?.objectValue?["p50_ms"] ?? .null) == .null, "an empty minute has no latency")
            #expect(hour.object?["scope"] == "instance")

            let day = try await client.get("/_admin/environments/development/traffic?window=day", headers: bearer)
            let hours = try #require(day.object?["periods"]?.arrayValue)
            #expect(hours.count == 24)
            let total = hours.compactMap { Self.integer($0.objectValue?["requests"]) }.reduce(0, +)
            #expect(total == 5, "the day's hours hold every request of the hour")
            // Production saw none of it.
            let production = try await client.get("/_admin/environments/production/traffic", headers: bearer)
            #expect(production.object?["periods"]?.arrayValue?.allSatisfy { $0.objectValue?["requests"] == .integer(0) } == true)
            #expect(try await client.get("/_admin/environments/development/traffic?window=week", headers: bearer).status == .badRequest)
        }
    }

    @Test("the last requests: newest first, filtered by status class, path, user and time; no query string, no token, no secret")
    func recent() async throws {
        let clock = ManualClock()
        try await AdminAPITests.run(clock: clock) { client in
            let (token, _, _) = try await AdminAPITests.signIn(client)
            let bearer = ["Authorization": "Bearer \(token)"]
            _ = try await client.create("user", ["username": "olivia", "password": "secret-1"])
            let session = try await client.login([("username", "olivia"), ("password", "secret-1")])
            let start = clock.nowMilliseconds()
            clock.advance(by: 1_000)
            let created = try await client.signed(.post, "/todo", session: session, ts: clock.nowMilliseconds() / 1000, json: ["title": "mine"])
            #expect(created.status == .created || created.status == .ok, "\(created.text)")
            #expect(try await client.get("/todo?title=secret-query").status == .ok)
            #expect(try await client.get("/nothing/here").status == .notFound)
            let device = String(repeating: "ab", count: 32)
            _ = try await client.request(.delete, "/tokens/ios/\(device)")

            let all = try await client.get("/_admin/environments/development/requests", headers: bearer)
            #expect(all.status == .ok, "\(all.text)")
            let list = try #require(all.object?["requests"]?.arrayValue)
            let entries = list.compactMap { $0.objectValue }
            #expect(entries.count >= 5)
            let times = entries.compactMap { Self.integer($0["at"]) }
            #expect(times == times.sorted(by: >), "newest first")
            #expect(!all.text.contains("secret-query") && !all.text.contains("secret-1"))
            #expect(!all.text.contains(device) && !all.text.contains(String(device.prefix(8))), "a device token, or its start, was kept")
            #expect(!all.text.contains(session.accessToken) && !all.text.contains(session.macKey))
            #expect(entries.contains { $0["path"] == "/tokens/{type}/{token}" })
            let signed = try #require(entries.first { $0["method"] == "POST" && $0["path"] == "/todo" })
            #expect(signed["user"] == "user/olivia")
            #expect(signed["route"] == "/{schema}" || signed["route"]?.stringValue?.contains("schema") == true, "\(signed)")
            #expect(signed["request_id"]?.stringValue?.isEmpty == false)

            let notFound = try await client.get("/_admin/environments/development/requests?status=4xx", headers: bearer)
            let notFoundPaths = notFound.object?["requests"]?.arrayValue?.compactMap { $0.objectValue?["path"]?.stringValue } ?? []
            #expect(notFoundPaths.contains("/nothing/here") && !notFoundPaths.contains("/todo"))
            let byPath = try await client.get("/_admin/environments/development/requests?path=/todo", headers: bearer)
            #expect(byPath.object?["requests"]?.arrayValue?.allSatisfy { $0.objectValue?["path"]?.stringValue?.hasPrefix("/todo") == true } == true)
            let byUser = try await client.get("/_admin/environments/development/requests?user=user/olivia", headers: bearer)
            #expect(byUser.object?["requests"]?.arrayValue?.count == 1)
            let before = try await client.get("/_admin/environments/development/requests?until=\(start)", headers: bearer)
            #expect(before.object?["requests"]?.arrayValue?.contains { $0.objectValue?["path"] == "/todo" } == false)
            let long = "/" + String(repeating: "a", count: 4_000)
            _ = try await client.get(long)
            let clipped = try await client.get("/_admin/environments/development/requests?limit=1", headers: bearer)
            let kept = clipped.object?["requests"]?.arrayValue?.first?.objectValue?["path"]?.stringValue ?? ""
            #expect(kept.hasPrefix("/aaaa") && kept.utf8.count <= 520, "a path of \(kept.utf8.count) bytes was kept")
            for bad in ["status=6xx", "status=abc", "since=yesterday", "limit=0", "path=todo"] {
                let refused = try await client.get("/_admin/environments/development/requests?\(bad)", headers: bearer)
                #expect(refused.status == .badRequest, "\(bad): \(refused.text)")
            }
        }
    }
}
