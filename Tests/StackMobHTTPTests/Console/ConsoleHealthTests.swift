import Foundation
import NIOCore
import NIOPosix
import StackMobApp
import StackMobCore
import StackMobTestSupport
import Testing

/// The overview's health at a glance (docs/operations.md, "Web console") and the admin API's
/// `…/health` behind it: the push and mail outboxes, event-loop stalls, open connections, the
/// database's size and the configuration warnings of start-up.
@Suite("Web console and admin API: health at a glance")
struct ConsoleHealthTests {
    /// A server whose start-up warns that its data directory is open to other users, with an
    /// operator, stalls counted from 10 ms.
    static func run(_ body: @Sendable (StackMobClient) async throws -> Void) async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.monitoring.stallWarningMilliseconds = 10
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try await AdminTool.addOperator(
                configuration: configuration, storage: try TestServer.storage(configuration), name: "ops", password: AdminAPITests.password,
                logger: TestServer.quietLogger)
            #expect(chmod(directory, 0o755) == 0)
            try await TestServer.run(configuration: configuration, body)
        }
    }

    /// The number in the `<data value>` of the overview's health row `id`.
    static func figure(_ id: String, in html: String) -> Int64? {
        guard let start = html.range(of: "<tr id=\"health-\(id)\"") else { return nil }
        let rest = html[start.upperBound...]
        guard let end = rest.range(of: "</tr>"), let value = rest[..<end.lowerBound].range(of: "<data value=\"") else { return nil }
        return Int64(String(rest[value.upperBound...].prefix { $0.isNumber }))
    }

    /// The health row `id` of the overview, as HTML.
    static func row(_ id: String, in html: String) -> String {
        guard let start = html.range(of: "<tr id=\"health-\(id)\"") else { return "" }
        let rest = html[start.lowerBound...]
        return String(rest[..<(rest.range(of: "</tr>")?.upperBound ?? rest.endIndex)])
    }

    /// A push to a registered user and a password reset by mail: one of each in the outboxes.
    static func queue(_ client: StackMobClient, bearer: [String: String]) async throws {
        let registered = try await client.post(
            "/push/register_device_token_universal", ["userId": "ann", "token": ["token": .string(PushFixtures.iosToken(1)), "type": "iOS"]])
        #expect(registered.status == .ok, "\(registered.text)")
        let sent = try await client.post(
            "/_admin/environments/development/push/notifications", ["payload": ["alert": "hi"], "users": ["ann"]], headers: bearer)
        #expect(sent.status == .ok, "\(sent.text)")
        let user = try await client.post("/user", ["username": "ann", "password": "pw", "email": "ann@example.com"])
        #expect(user.status == .created, "\(user.text)")
        let reset = try await client.withoutKey.post("/_admin/environments/development/users/user/ann/forgot_password", [:], headers: bearer)
        #expect(reset.status == .ok, "\(reset.text)")
    }

    /// Holds one of the event loops the listeners serve on for 200 ms, once the detector has
    /// started its clocks (its first check on each loop only does that).
    static func stallALoop() async throws {
        try await Task.sleep(for: .milliseconds(200))
        _ = try await MultiThreadedEventLoopGroup.singleton.next().submit { usleep(200_000) }.get()
    }

    @Test("the overview shows each figure with a real value, linked to its page; nothing secret")
    func overview() async throws {
        try await Self.run { client in
            let (cookie, _) = try await ConsoleTests.signIn(client)
            let page = "\(ConsoleTests.console)/development/overview"
            let first = try await client.withoutKey.get(page, headers: ["Cookie": cookie]).text
            let before = try #require(Self.figure("connections", in: first), "\(first)")
            #expect(before >= 1, "the console's own connection")
            let bearer = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
            try await Self.queue(client, bearer: bearer)
            try await Self.stallALoop()
            let extra = try await RawConnection.connect(port: client.port)
            // The server counts the new connection once it has accepted it.
            var html = ""
            for _ in 0..<100 {
                html = try await client.withoutKey.get(page, headers: ["Cookie": cookie]).text
                if Self.figure("connections", in: html) == before + 1 && (Self.figure("stalls", in: html) ?? 0) >= 1 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(Self.figure("connections", in: html) == before + 1, "\(Self.row("connections", in: html))")
            #expect((Self.figure("stalls", in: html) ?? 0) >= 1, "\(Self.row("stalls", in: html))")
            await extra.close()

            #expect(html.contains("<h2 id=\"health-h\">Health at a glance</h2>"))
            #expect(html.contains("<th scope=\"row\">Push outbox</th>"))
            // One delivery queued: waiting, or already handed to the log sender of a server without APNs.
            let push = Self.row("push", in: html)
            #expect(push.contains("1 waiting") || push.contains("0 waiting, 0 failed"), "\(push)")
            #expect(push.contains("href=\"\(ConsoleTests.console)/development/push\""))
            #expect(Self.figure("mail", in: html) == 1, "\(Self.row("mail", in: html))")
            #expect(Self.row("mail", in: html).contains("href=\"\(ConsoleTests.console)/development/mail\""))
            #expect(Self.row("stalls", in: html).contains("the longest") && Self.row("stalls", in: html).contains("href=\"\(ConsoleTests.console)/development/traffic\""))
            #expect(Self.row("connections", in: html).contains("on the API port"))
            #expect(Self.row("connections", in: html).contains("href=\"\(ConsoleTests.console)/development/requests\""))
            #expect((Self.figure("database", in: html) ?? 0) > 0, "\(Self.row("database", in: html))")
            #expect(Self.row("database", in: html).contains("href=\"\(ConsoleTests.console)/development/backups\""))
            #expect(Self.figure("warnings", in: html) == 1, "\(Self.row("warnings", in: html))")
            #expect(html.contains("<strong>The data directory is open to other users; chmod 700 it</strong>"))
            #expect(html.contains("<code>sm.mode=755</code>"))
            // Neither the private key nor the reset mail's temporary password.
            #expect(!html.contains(TestServer.developmentPrivateKey) && !html.contains("Temporary password"))
        }
    }

    @Test("GET …/health: the same figures as JSON, for a session only")
    func adminAPI() async throws {
        try await Self.run { client in
            #expect(try await client.withoutKey.get("/_admin/environments/development/health").status == .unauthorized)
            let bearer = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
            #expect(try await client.withoutKey.get("/_admin/environments/staging/health", headers: bearer).status == .notFound)
            try await Self.queue(client, bearer: bearer)
            let reply = try await client.withoutKey.get("/_admin/environments/development/health", headers: bearer)
            #expect(reply.status == .ok && reply.header("Cache-Control") == "no-store")
            let health = try #require(reply.object)
            #expect(health["scope"] == "instance")
            let push = try #require(health["push_outbox"]?.objectValue)
            #expect(push.values.compactMap(\.integerValue).reduce(0, +) == 1, "\(push)")
            #expect(health["mail_outbox"]?.objectValue?["depth"] == .integer(1) && health["mail_outbox"]?.objectValue?["smtp"] == .bool(false))
            #expect(health["event_loop_stalls"]?.objectValue?["threshold_ms"] == .integer(10))
            #expect((health["connections"]?.objectValue?["open"]?.integerValue ?? 0) >= 1)
            #expect((health["database_bytes"]?.integerValue ?? 0) > 0)
            let warning = try #require(health["configuration_warnings"]?.arrayValue?.first?.objectValue)
            #expect(warning["message"] == "The data directory is open to other users; chmod 700 it")
            #expect(warning["detail"]?.objectValue?["sm.mode"] == "755")
            // Production's outboxes are its own.
            let production = try await client.withoutKey.get("/_admin/environments/production/health", headers: bearer)
            #expect(production.object?["mail_outbox"]?.objectValue?["depth"] == .integer(0))
        }
    }
}
