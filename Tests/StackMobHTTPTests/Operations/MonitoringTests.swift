import Foundation
import HummingbirdTesting
import StackMobApp
import StackMobCore
import StackMobTestSupport
import Testing

@testable import StackMobHTTP

/// `/metrics`, `/health` and `/ready` (docs/operations.md, "Monitoring"), on the real app over real
/// HTTP.
@Suite("Monitoring: metrics, health and readiness")
struct MonitoringTests {
    /// One sample of the Prometheus text format: name, labels, value.
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    /// Parses the text exposition format strictly: every line is a `# HELP`/`# TYPE` comment or
    /// `name{label="value",…} number`; anything else fails the test.
    static func parse(_ text: String) throws -> [Sample] {
        var samples: [Sample] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let (head, value) = try #require(line.lastIndex(of: " ").map { (line[..<$0], line[line.index(after: $0)...]) }, "\(line)")
            let number = try #require(Double(value), "not a number in: \(line)")
            var name = String(head)
            var labels: [String: String] = [:]
            if let open = head.firstIndex(of: "{") {
                #expect(head.hasSuffix("}"), "\(line)")
                name = String(head[..<open])
                let body = head[head.index(after: open)..<head.index(before: head.endIndex)]
                for pair in body.split(separator: ",") where !pair.isEmpty {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    #expect(parts.count == 2 && parts[1].hasPrefix("\"") && parts[1].hasSuffix("\""), "\(line)")
                    labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
                }
            }
            #expect(name.range(of: "^[a-zA-Z_:][a-zA-Z0-9_:]*$", options: .regularExpression) != nil, "bad metric name in: \(line)")
            samples.append(Sample(name: name, labels: labels, value: number))
        }
        return samples
    }

    static func total(_ samples: [Sample], _ name: String, where match: [String: String] = [:]) -> Double {
        samples.filter { sample in sample.name == name && match.allSatisfy { sample.labels[$0.key] == $0.value } }.reduce(0) { $0 + $1.value }
    }

    @Test("/metrics parses as Prometheus text and its counters move with traffic")
    func metricsMoveWithTraffic() async throws {
        try await TestServer.run { client in
            let monitor = client.withoutKey
            let first = try Self.parse((try await monitor.get("/metrics")).text)
            for index in 0..<5 { _ = try await client.post("/todo", ["title": .string("t\(index)")]) }
            _ = try await client.get("/todo/missing")
            let response = try await monitor.get("/metrics")
            #expect(response.status == .ok)
            #expect(response.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
            let samples = try Self.parse(response.text)
            let created = ["route": "/{schema}", "method": "POST", "status_class": "2xx", "environment": "development"]
            #expect(Self.total(samples, "stackmob_http_requests_total", where: created) - Self.total(first, "stackmob_http_requests_total", where: created) == 5)
            #expect(Self.total(samples, "stackmob_http_requests_total", where: ["status_class": "4xx", "environment": "development"]) >= 1)
            #expect(Self.total(samples, "stackmob_http_request_duration_seconds_count", where: ["route": "/{schema}"]) >= 5)
            #expect(Self.total(samples, "stackmob_database_duration_seconds_count", where: ["environment": "development", "operation": "write"]) >= 5)
            #expect(samples.contains { $0.name == "stackmob_push_outbox" && $0.labels["state"] == "pending" })
            #expect(samples.contains { $0.name == "stackmob_mail_outbox" && $0.labels["environment"] == "production" })
            // Route templates, never raw paths with ids.
            #expect(!response.text.contains("/todo/missing"))
            // Every family says what it is (`promtool check metrics` warns of one without HELP).
            let lines = response.text.split(separator: "\n")
            let families = Set(lines.filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] })
            let helped = Set(lines.filter { $0.hasPrefix("# HELP ") && $0.split(separator: " ").count > 3 }.map { $0.split(separator: " ")[2] })
            #expect(families.count >= 5 && families == helped, "without HELP: \(families.subtracting(helped))")
        }
    }

    @Test("/health and /ready answer a loopback client; with an API key the paths belong to the app's schemas")
    func healthAndReady() async throws {
        try await TestServer.run { client in
            let health = try await client.withoutKey.get("/health")
            #expect(health.status == .ok && health.object?["status"] == "alive")
            let ready = try await client.withoutKey.get("/ready")
            #expect(ready.status == .ok && ready.object?["status"] == "ready")
            // A request with the app's key is a StackMob request: a schema may be named `health`.
            _ = try await client.post("/health", ["status": "fine"])
            let schema = try await client.get("/health")
            #expect(schema.status == .ok && schema.array?.count == 1)
        }
    }

    @Test("with monitoring.enabled false the routes do not exist")
    func disabled() async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.monitoring.enabled = false
            try await TestServer.run(configuration: configuration) { client async throws in
                let response = try await client.withoutKey.get("/metrics")
                #expect(response.status != .ok)
            }
        }
    }

    @Test("monitoring.port serves the routes on a listener of its own, behind monitoring.key when set")
    func separateListener() async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.monitoring.port = 0
            configuration.monitoring.key = "monitoring-key-0123456789"
            let port = PortBox()
            let app = try await buildApplication(
                configuration: configuration, logger: TestServer.quietLogger, onMonitoringServerRunning: { bound in port.value.withLock { $0 = bound } })
            try await app.test(.live) { _ in
                #expect(try await eventually { port.value.withLock { $0 } != nil })
                let bound = try #require(port.value.withLock { $0 })
                try await TestClient.withClient(host: "127.0.0.1", port: bound) { connection in
                    let monitor = StackMobClient(connection: connection, port: bound, publicKey: nil)
                    #expect(try await monitor.get("/metrics").status == .notFound, "no key: as if the route did not exist")
                    let keyed = try await monitor.get("/metrics", headers: ["Authorization": "Bearer monitoring-key-0123456789"])
                    #expect(keyed.status == .ok && keyed.text.contains("stackmob_push_outbox"))
                    #expect(try await monitor.get("/ready", headers: ["Authorization": "Bearer monitoring-key-0123456789"]).status == .ok)
                    #expect(try await monitor.get("/todo", headers: ["Authorization": "Bearer monitoring-key-0123456789"]).status == .notFound)
                }
            }
        }
    }

    @Test("who may read the routes on the API port and on the monitoring port", arguments: [
        // (key, standalone, address, authorization, API key header, allowed)
        (nil as String?, false, "127.0.0.1", nil as String?, false, true),
        (nil, false, "::1", nil, false, true),
        (nil, false, "203.0.113.9", nil, false, false),
        ("k0123456789abcdef", false, "203.0.113.9", "Bearer k0123456789abcdef", false, true),
        ("k0123456789abcdef", false, "203.0.113.9", "Bearer wrong", false, false),
        (nil, false, "127.0.0.1", nil, true, false),
        (nil, true, "203.0.113.9", nil, false, true),
        ("k0123456789abcdef", true, "127.0.0.1", nil, false, false),
        ("k0123456789abcdef", true, "203.0.113.9", "Bearer k0123456789abcdef", false, true),
    ])
    func access(key: String?, standalone: Bool, address: String, authorization: String?, apiKey: Bool, allowed: Bool) {
        var settings = MonitoringSettings()
        settings.key = key
        #expect(
            MonitoringMiddleware.allows(
                settings, standalone: standalone, remoteAddress: address, forwarded: false, authorization: authorization, carriesAPIKey: apiKey)
                == allowed)
    }
}
