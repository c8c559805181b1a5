import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import StackMobApp
import StackMobCore
import StackMobHTTP
import StackMobTestSupport
import Synchronization
import Testing

/// The attacks of a client holding only the public key, on the operator and on other users:
/// an uploaded page run with the console's session, the admin API reached from a site's origin
/// or from the internet, a reset of production, and forged forwarding headers. Each test is the
/// attack, over HTTP against the real server.
@Suite("Uploaded content is inert; the operator surface is fenced off; proxies are trusted only when listed")
struct OperatorSurfaceTests {
    static let page = "<html><script>fetch('/_admin/session').then(r => r.text()).then(t => document.title = t)</script></html>"

    @Test("an uploaded HTML or SVG file is an attachment with nosniff and the sandbox CSP; an image stays inline")
    func uploadsAreInert() async throws {
        try await TestServer.run { client in
            let created = try await client.create(
                "note",
                [
                    "page": .string(BinaryFieldTests.envelope(Array(Self.page.utf8), filename: "index.html", type: "text/html")),
                    "art": .string(BinaryFieldTests.envelope(Array("<svg onload='alert(1)'/>".utf8), filename: "a.svg", type: "image/svg+xml")),
                    "doc": .string(BinaryFieldTests.envelope(Array("%PDF-1.4".utf8), filename: "a.pdf", type: "application/pdf")),
                    "pic": .string(BinaryFieldTests.envelope([0x89, 0x50, 0x4E, 0x47], filename: "p.png", type: "IMAGE/PNG; x=1")),
                    "clip": .string(BinaryFieldTests.envelope([0, 0, 0, 0x18], filename: "c.mp4", type: "video/mp4")),
                ])
            for (field, filename) in [("page", "index.html"), ("art", "a.svg"), ("doc", "a.pdf")] {
                let url = try #require(created[field]?.stringValue)
                for method in [HTTPRequest.Method.get, .head] {
                    let download = try await client.withoutKey.request(method, try BinaryFieldTests.path(of: url))
                    #expect(download.status == .ok)
                    #expect(download.header("Content-Type") == "application/octet-stream", "\(field)")
                    #expect(download.header("Content-Disposition") == "attachment; filename=\"\(filename)\"", "\(field)")
                    #expect(download.header("X-Content-Type-Options") == "nosniff")
                    #expect(download.header("Content-Security-Policy") == "default-src 'none'; sandbox")
                }
            }
            for (field, type) in [("pic", "image/png"), ("clip", "video/mp4")] {
                let download = try await client.withoutKey.get(try BinaryFieldTests.path(of: try #require(created[field]?.stringValue)))
                #expect(download.header("Content-Type") == type)
                #expect(download.header("Content-Disposition") == "inline")
                #expect(download.header("X-Content-Type-Options") == "nosniff")
                #expect(download.header("Content-Security-Policy") == "default-src 'none'; sandbox")
            }
        }
    }

    @Test("a file written through an HTML5 site's port is linked to the API origin, and the site redirects stored URLs there")
    func filesNeverOnSiteOrigin() async throws {
        try await HTML5Fixture.run { site in
            let sitePort = try #require(site.ports[.development])
            try await TestClient.withClient(host: "127.0.0.1", port: sitePort) { connection async throws in
                let origin = StackMobClient(
                    connection: connection, port: sitePort, publicKey: TestServer.developmentPublicKey, authority: "localhost:\(sitePort)")
                let created = try await origin.post(
                    "/note", ["page": .string(BinaryFieldTests.envelope(Array(Self.page.utf8), filename: "x.html", type: "text/html"))],
                    headers: HTML5SameOriginAPITests.proxyPlain)
                #expect(created.status == .created, "\(created.text)")
                let url = try #require(created.object?["page"]?.stringValue)
                #expect(url.hasPrefix("http://localhost:\(site.api.port)/_files/development/note/"), "\(url)")
                // The site's origin hands stored URLs to the API origin, API call or page request.
                let path = try BinaryFieldTests.path(of: url)
                for headers in [[:], HTML5SameOriginAPITests.proxyPlain] {
                    let onSite = try await HTML5Fixture.request(port: sitePort, path, authority: "localhost:\(sitePort)", headers: headers)
                    #expect(onSite.status == .movedPermanently)
                    #expect(onSite.header("Location") == "http://localhost:\(site.api.port)\(path)")
                    #expect(onSite.body.isEmpty)
                }
                #expect(try await site.api.withoutKey.get(path).header("Content-Disposition") == "attachment; filename=\"x.html\"")
            }
        }
    }

    @Test("the HTML5 port never reaches the admin API or console, whatever Accept says; nor does a site's host on the API port")
    func sitesNeverRouteAdmin() async throws {
        try await HTML5Fixture.run(configure: { $0.html5.production.hosts = ["www.app.test"] }) { site in
            for headers in [[:], HTML5SameOriginAPITests.proxyPlain, ["Accept": "application/vnd.stackmob+json; version=0"]] {
                for path in ["/_admin/session", "/_admin/console/sign-in", "/_admin/environments/development/schemas"] {
                    let onSite = try await site.page(path, headers: headers)
                    #expect(onSite.status == .notFound, "\(path) \(headers): \(onSite.status)")
                    #expect(!onSite.text.contains("Sign in"))
                    let onHost = try await HTML5Fixture.request(port: site.api.port, path, authority: "www.app.test", headers: headers)
                    #expect(onHost.status == .notFound, "\(path) \(headers): \(onHost.status)")
                    #expect(!onHost.text.contains("Sign in") && !onHost.text.contains("operator"), "\(onHost.text)")
                }
            }
            // The API port's own host still serves it.
            #expect(try await site.api.withoutKey.get("/_admin/console/sign-in").status == .ok)
        }
    }

    @Test("admin.port serves the admin API and console on a listener of its own; admin.on_api_port false takes them off the API port")
    func operatorListener() async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.admin.port = 0
            configuration.admin.onAPIPort = false
            try await AdminTool.addOperator(
                configuration: configuration, storage: try TestServer.storage(configuration), name: "ops", password: AdminAPITests.password,
                logger: TestServer.quietLogger)
            let adminPort = Mutex<Int?>(nil)
            let app = try await buildApplication(
                configuration: configuration, logger: TestServer.quietLogger, onAdminServerRunning: { port in adminPort.withLock { $0 = port } })
            try await app.test(.live) { client in
                let api = StackMobClient(client: client, publicKey: TestServer.developmentPublicKey)
                for path in ["/_admin/session", "/_admin/console/sign-in", "/_admin/environments/development/schemas"] {
                    let refused = try await api.withoutKey.get(path)
                    #expect(refused.status == .notFound, "\(path): \(refused.text)")
                    #expect(try await api.withoutKey.post("/_admin/session", ["name": "ops", "password": .string(AdminAPITests.password)]).status == .notFound)
                }
                #expect(try await eventually { adminPort.withLock { $0 } != nil })
                let port = try #require(adminPort.withLock { $0 })
                try await TestClient.withClient(host: "127.0.0.1", port: port) { connection async throws in
                    let admin = StackMobClient(connection: connection, port: port, publicKey: nil, authority: "127.0.0.1:\(port)")
                    let session = try await AdminAPITests.signIn(admin)
                    let schemas = try await admin.get("/_admin/environments/development/schemas", headers: ["Authorization": "Bearer \(session.token)"])
                    #expect(schemas.status == .ok, "\(schemas.text)")
                    #expect(try await admin.get("/_admin/console/sign-in").status == .ok)
                    // The operator listener is no way into the StackMob API.
                    #expect(try await admin.get("/todo", headers: ["X-StackMob-API-Key": TestServer.developmentPublicKey]).status == .notFound)
                    // A file an operator stores here is linked to the API's port, not this one.
                    let created = try await admin.post(
                        "/_admin/environments/development/objects/photo",
                        ["pic": .string(BinaryFieldTests.envelope([0x89, 0x50], filename: "p.png"))],
                        headers: ["Authorization": "Bearer \(session.token)"])
                    #expect(created.status == .created, "\(created.text)")
                    #expect(created.object?["pic"]?.stringValue?.hasPrefix("http://127.0.0.1:\(api.port)/_files/") == true, "\(created.text)")
                }
            }
        }
    }

    @Test("reset is no route on a normal server, resets development in CI mode, and production only when listed")
    func resetWhereMeant() async throws {
        let cases: [(configure: @Sendable (inout StackMobConfiguration) -> Void, development: Bool, production: Bool)] = [
            ({ _ in }, false, false),
            ({ $0.ephemeral = true }, true, false),
            ({ $0.ephemeral = true; $0.admin.resetEnvironments = [.development, .production] }, true, true),
            ({ $0.admin.resetEnvironments = [.production] }, false, true),
        ]
        for (configure, development, production) in cases {
            try await AdminAPITests.run(configure: configure) { client in
                let auth = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
                _ = try await client.create("todo", ["title": "kept"])
                for (kind, allowed) in [(EnvironmentKind.development, development), (.production, production)] {
                    let reset = try await client.post("/_admin/environments/\(kind.rawValue)/reset", [:], headers: auth)
                    #expect(reset.status == (allowed ? .ok : .notFound), "\(kind): \(reset.text)")
                }
                #expect(try await client.get("/todo").array?.count == (development ? 0 : 1))
            }
        }
    }

    @Test("a loopback request that came through a proxy cannot read /metrics, /health or /ready")
    func proxiedLoopbackIsRemote() async throws {
        try await TestServer.run { client in
            #expect(try await client.withoutKey.get("/metrics").status == .ok)
            for header in ["X-Forwarded-For", "Forwarded", "X-Real-IP", "X-Forwarded-Proto"] {
                let value = header == "Forwarded" ? "for=203.0.113.9" : header == "X-Forwarded-Proto" ? "https" : "203.0.113.9"
                for path in ["/metrics", "/health", "/ready"] {
                    let proxied = try await client.withoutKey.get(path, headers: [header: value])
                    #expect(proxied.status != .ok, "\(path) with \(header)")
                    #expect(!proxied.text.contains("stackmob_http_requests_total") && !proxied.text.contains("alive"))
                }
            }
        }
    }

    @Test("behind a trusted proxy, failures slow their address more each time and leave another address's login and signed requests working")
    func failureLimitsPerForwardedAddress() async throws {
        let clock = ManualClock(1_800_000_000_000)
        try await TestServer.run(clock: clock) { client in
            let signUp = try await client.post("/user", ["username": "ann", "password": "right"])
            #expect(signUp.status == .created)
            for index in 0..<50 {
                #expect(try await Self.login(client, "nobody\(index)", "guess", forwardedFor: "198.51.100.1, 203.0.113.66").status == .unauthorized)
            }
            // The guessing address is slowed, more with each failure past its allowance.
            let slowed = try await Self.login(client, "nobody", "guess", forwardedFor: "203.0.113.66")
            #expect(slowed.status == .tooManyRequests)
            #expect(slowed.header("Retry-After") == "1")
            clock.advance(by: 1000)
            #expect(try await Self.login(client, "nobody", "guess", forwardedFor: "203.0.113.66").status == .unauthorized)
            #expect(try await Self.login(client, "nobody", "guess", forwardedFor: "203.0.113.66").header("Retry-After") == "2")
            // The left of the chain is the client's own writing: it cannot pick a fresh address.
            #expect(try await Self.login(client, "nobody", "guess", forwardedFor: "198.51.100.2, 203.0.113.66").status == .tooManyRequests)
            // Another address: its login and a correctly signed private-key request go through.
            #expect(try await Self.login(client, "ann", "right", forwardedFor: "203.0.113.66, 203.0.113.77").status == .ok)
            let signed = try await client.oauth1(
                .get, "/user", shape: .java, timestamp: clock.nowMilliseconds() / 1000,
                headers: ["X-Forwarded-For": "203.0.113.77"])
            #expect(signed.status == .ok, "\(signed.text)")
        }
    }

    @Test("failed sign-ins for an operator from one address leave the operator signing in from another")
    func operatorNotLockedOut() async throws {
        let clock = ManualClock()
        try await AdminAPITests.run(clock: clock) { client in
            let guess: JSONValue = ["name": "ops", "password": "guess"]
            for _ in 0..<5 {
                #expect(try await client.post("/_admin/session", guess, headers: ["X-Forwarded-For": "203.0.113.66"]).status == .unauthorized)
            }
            var delays: [String?] = []
            for _ in 0..<3 {
                let slowed = try await client.post("/_admin/session", guess, headers: ["X-Forwarded-For": "203.0.113.66"])
                #expect(slowed.status == .tooManyRequests)
                delays.append(slowed.header("Retry-After"))
                clock.advance(by: Int64(slowed.header("Retry-After").flatMap(Int.init) ?? 0) * 1000)
                #expect(try await client.post("/_admin/session", guess, headers: ["X-Forwarded-For": "203.0.113.66"]).status == .unauthorized)
            }
            #expect(delays == ["1", "2", "4"])
            let right: JSONValue = ["name": "ops", "password": .string(AdminAPITests.password)]
            #expect(try await client.post("/_admin/session", right, headers: ["X-Forwarded-For": "203.0.113.66"]).status == .tooManyRequests)
            let signIn = try await client.post("/_admin/session", right, headers: ["X-Forwarded-For": "203.0.113.77"])
            #expect(signIn.status == .ok, "\(signIn.text)")
        }
    }

    static func login(_ client: StackMobClient, _ user: String, _ password: String, forwardedFor: String) async throws -> APIResponse {
        try await client.postForm(
            "/user/accessToken", [("username", user), ("password", password), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")],
            headers: ["X-Forwarded-For": forwardedFor])
    }

    @Test("forwarding headers from a peer that is not a trusted proxy change nothing")
    func untrustedForwardingIgnored() async throws {
        try await AdminAPITests.run(configure: { $0.trustedProxies = .none }) { client in
            for index in 0..<50 {
                _ = try await client.postForm(
                    "/user/accessToken", [("username", "nobody\(index)"), ("password", "x"), ("token_type", "mac")],
                    headers: ["X-Forwarded-For": "203.0.113.\(index)"])
            }
            let refused = try await client.postForm(
                "/user/accessToken", [("username", "nobody"), ("password", "x"), ("token_type", "mac")], headers: ["X-Forwarded-For": "198.51.100.9"])
            #expect(refused.status == .tooManyRequests)
            let signIn = try await client.post(
                "/_admin/session", ["name": "ops", "password": .string(AdminAPITests.password)], headers: ["X-Forwarded-Proto": "https"])
            #expect(signIn.header("Set-Cookie")?.contains("Secure") == false)
        }
    }

    @Test("the admin cookie is Secure when a trusted proxy says the browser came over TLS")
    func secureCookieBehindTLSProxy() async throws {
        try await AdminAPITests.run { client in
            let body: JSONValue = ["name": "ops", "password": .string(AdminAPITests.password)]
            let plain = try await client.post("/_admin/session", body)
            #expect(plain.header("Set-Cookie")?.contains("; Secure") == false)
            for headers in [["X-Forwarded-Proto": "https"], ["Forwarded": "for=203.0.113.1;proto=https"]] {
                let tls = try await client.post("/_admin/session", body, headers: headers)
                #expect(tls.status == .ok)
                #expect(tls.header("Set-Cookie")?.contains("; Secure") == true, "\(headers)")
            }
        }
    }

    @Test("the console's pages run only their own script: a nonce, never 'self', which would admit /_files/")
    func consoleScriptPolicy() async throws {
        try await AdminAPITests.run { client in
            let first = try await client.withoutKey.get("/_admin/console/sign-in")
            let second = try await client.withoutKey.get("/_admin/console/sign-in")
            let policy = try #require(first.header("Content-Security-Policy"))
            let scriptSource = try #require(policy.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix("script-src") })
            #expect(!scriptSource.contains("'self'"))
            #expect(scriptSource.hasPrefix("script-src 'nonce-"))
            let nonce = String(scriptSource.dropFirst("script-src 'nonce-".count).dropLast())
            #expect(first.text.contains("console.js\" nonce=\"\(nonce)\""))
            #expect(second.header("Content-Security-Policy") != policy)
        }
    }
}
