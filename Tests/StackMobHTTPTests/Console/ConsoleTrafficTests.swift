import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// The console's traffic pages (docs/operations.md, "Web console"): charts drawn on the server
/// with their tables, and the recent requests narrowed by the filter form.
@Suite("Web console: traffic charts and recent requests")
struct ConsoleTrafficTests {
    @Test("the traffic page draws requests, errors and latency as SVG, each with its table")
    func charts() async throws {
        try await AdminAPITests.run { client in
            let (cookie, _) = try await ConsoleTests.signIn(client)
            _ = try await client.create("todo", ["title": "one"])
            for _ in 0..<2 { _ = try await client.get("/todo/missing") }
            let page = try await client.withoutKey.get("\(ConsoleTests.console)/development/traffic", headers: ["Cookie": cookie])
            #expect(page.status == .ok)
            let html = page.text
            #expect(html.components(separatedBy: "<svg class=\"chart\"").count == 3, "two charts")
            #expect(html.contains("<rect class=\"ok\"") && html.contains("<rect class=\"client\""), "answered and 4xx bars")
            #expect(html.contains("<polyline class=\"p50\" points=\"") && !html.contains("points=\"\"></polyline><polyline class=\"p99\" points=\"\""))
            #expect(html.contains("id=\"requests-table\"") && html.contains("id=\"latency-table\""))
            #expect(html.contains("Each instance of a cluster counts its own requests"))
            // Three API requests in the last minute, one of them... two 4xx: a 66.7 % error rate.
            #expect(html.contains("<td class=\"num\">3</td><td class=\"num\">2</td><td class=\"num\">0</td><td class=\"num\">66.7 %</td>"), "\(html)")
        }
    }

    @Test("the recent requests page lists the newest first and its filter narrows them; nothing secret is shown")
    func recent() async throws {
        try await AdminAPITests.run { client in
            let (cookie, _) = try await ConsoleTests.signIn(client)
            _ = try await client.create("todo", ["title": "one"])
            _ = try await client.get("/todo?title=secret-filter")
            _ = try await client.get("/gone/away")
            let all = try await client.withoutKey.get("\(ConsoleTests.console)/development/requests", headers: ["Cookie": cookie])
            #expect(all.status == .ok)
            #expect(all.text.contains("<code>/gone/away</code>") && all.text.contains("<code>/todo</code>"))
            #expect(!all.text.contains("secret-filter"), "a query string was shown")
            #expect(all.text.contains("class=\"failed\""))
            let failed = try await client.withoutKey.get("\(ConsoleTests.console)/development/requests?status=4xx", headers: ["Cookie": cookie])
            #expect(failed.text.contains("<code>/gone/away</code>") && !failed.text.contains("<code>/todo</code>"))
            let byPath = try await client.withoutKey.get("\(ConsoleTests.console)/development/requests?path=%2Ftodo", headers: ["Cookie": cookie])
            #expect(byPath.text.contains("<code>/todo</code>") && !byPath.text.contains("<code>/gone/away</code>"))
            let none = try await client.withoutKey.get("\(ConsoleTests.console)/development/requests?user=user%2Fnobody", headers: ["Cookie": cookie])
            #expect(none.text.contains("No request matches."))
        }
    }
}
