import Foundation
import Hummingbird
import Logging
import StackMobApp
import StackMobCore
import StackMobHTTP
import StackMobTestSupport
import Synchronization
import Testing

/// Requests that break HTTP/1.1 framing, or hold a connection, sent byte for byte over a real
/// socket: each gets a 4xx/501 with a JSON error (never a 500), and the connection is either
/// usable afterwards or closed, never left hanging.
@Suite("Malformed requests and held connections", .tags(.timing))
struct MalformedRequestTests {
    static let key = TestServer.developmentPublicKey

    static func request(_ method: String, _ path: String, headers: [String] = [], body: String = "") -> String {
        let lines = ["\(method) \(path) HTTP/1.1", "Host: 127.0.0.1", "Accept: application/vnd.stackmob+json; version=0", "X-StackMob-API-Key: \(key)"]
            + headers
        return lines.joined(separator: "\r\n") + "\r\n\r\n" + body
    }

    @Test("a Transfer-Encoding other than chunked is 501, on the API and the push port", arguments: ["xchunked", "gzip", "gzip, chunked"])
    func unsupportedTransferCoding(coding: String) async throws {
        try await Self.withServer { api, push, _ in
            for port in [api, push] {
                let connection = try await RawConnection.connect(port: port)
                try await connection.send(Self.request("POST", "/thing", headers: ["Transfer-Encoding: \(coding)"], body: "5\r\n{\"a\":\r\n0\r\n\r\n"))
                let response = try #require(try await connection.response(), "port \(port)")
                #expect(response.status == 501, "\(response.body)")
                #expect(response.body.contains("Transfer-Encoding '\(coding.split(separator: ",")[0])' is not supported"))
                #expect(try await connection.closedByServer(within: .seconds(5)))
                await connection.close()
            }
        }
    }

    @Test("a chunked body with a bad chunk size is 400, on the API and the push port")
    func badChunkSize() async throws {
        try await Self.withServer { api, push, log in
            for (port, path) in [(api, "/thing"), (push, "/register_device_token_universal")] {
                let connection = try await RawConnection.connect(port: port)
                try await connection.send(Self.request("POST", path, headers: ["Transfer-Encoding: chunked"], body: "zz\r\n{}\r\n0\r\n\r\n"))
                let response = try #require(try await connection.response(), "port \(port)")
                #expect(response.status == 400, "\(path): \(response.body)")
                #expect(response.body.contains("Malformed HTTP request"), "\(response.body)")
                #expect(try await connection.closedByServer(within: .seconds(5)))
                await connection.close()
            }
            #expect(!log.all.contains { $0.level >= .error }, "\(log.all.filter { $0.level >= .error }.map(\.fullText))")
        }
    }

    @Test("a chunked body that breaks under a route that does not read it: the route's answer alone, then a closed connection")
    func badChunkSizeUnread() async throws {
        try await Self.withServer { api, _, _ in
            let connection = try await RawConnection.connect(port: api)
            // No API key: refused before the body is read.
            try await connection.send("POST /thing HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
            let response = try #require(try await connection.response())
            #expect(response.status == 401, "\(response.body)")
            #expect(try await connection.closedByServer(within: .seconds(5)))
            // No second answer (a bare 400 for the body) before the close.
            let second = try await connection.response(timeout: .milliseconds(100))
            #expect(second?.status == nil, "\(second?.status ?? 0)")
            await connection.close()
        }
    }

    @Test("headers past 80 KiB or 1,000 fields are a 400 and a closed connection")
    func oversizedHeaders() async throws {
        try await Self.withServer { api, _, _ in
            let large = ["X-Large: " + String(repeating: "a", count: 100_000)]
            let many = (0..<1_500).map { "X-Field-\($0): a" }
            for headers in [large, many] {
                let connection = try await RawConnection.connect(port: api)
                try await connection.send(Self.request("GET", "/thing/x", headers: headers))
                #expect(try await connection.response()?.status == 400)
                #expect(try await connection.closedByServer(within: .seconds(5)))
                await connection.close()
            }
        }
    }

    @Test("after an Upgrade or CONNECT request, the answer says Connection: close and the connection closes")
    func upgradeClosesConnection() async throws {
        try await Self.withServer { api, _, _ in
            let upgrade = try await RawConnection.connect(port: api)
            try await upgrade.send(Self.request("GET", "/thing/x", headers: ["Connection: upgrade", "Upgrade: websocket"]))
            let answered = try #require(try await upgrade.response())
            #expect(answered.status == 404)
            #expect(answered.body.contains("\"error\""))
            #expect(answered.headers["connection"] == "close")
            #expect(try await upgrade.closedByServer(within: .seconds(5)))
            await upgrade.close()

            let connect = try await RawConnection.connect(port: api)
            try await connect.send(Self.request("CONNECT", "/thing"))
            // NIO encodes every response to CONNECT without a body (RFC 9112 §6.3), so the close
            // is what delimits it.
            let refused = try #require(try await connect.response())
            #expect(refused.status == 404)
            #expect(refused.headers["connection"] == "close")
            #expect(try await connect.closedByServer(within: .seconds(5)))
            await connect.close()

            // An ordinary keep-alive connection still serves request after request.
            let keepAlive = try await RawConnection.connect(port: api)
            for _ in 0..<3 {
                try await keepAlive.send(Self.request("GET", "/thing/x"))
                #expect(try await keepAlive.response()?.status == 404)
            }
            #expect(!(try await keepAlive.closedByServer(within: .milliseconds(200))))
            await keepAlive.close()
        }
    }

    @Test("a body trickling in slower than the body timeout gets 408 and a closed connection")
    func slowBody() async throws {
        try await Self.withServer(configure: { $0.bodyTimeoutSeconds = 1 }) { api, _, _ in
            let connection = try await RawConnection.connect(port: api)
            let started = ContinuousClock.now
            try await connection.send(Self.request("POST", "/thing", headers: ["Content-Length: 100"], body: "{"))
            var response: RawConnection.Response?
            for _ in 0..<40 where response == nil {
                try? await connection.send(" ")
                response = try await connection.response(timeout: .milliseconds(250))
            }
            let timedOut = try #require(response, "no answer within 10 s")
            #expect(timedOut.status == 408)
            #expect(timedOut.body.contains("did not arrive within 1 seconds"))
            #expect(ContinuousClock.now - started < .seconds(8))
            #expect(try await connection.closedByServer(within: .seconds(5)))
            await connection.close()

            // A route that never reads the body does not let the client hold the connection either.
            let unread = try await RawConnection.connect(port: api)
            try await unread.send(Self.request("GET", "/thing/x", headers: ["Content-Length: 100"], body: "x"))
            #expect(try await unread.response()?.status == 404)
            #expect(try await unread.trickle { _ in "x" })
            await unread.close()
        }
    }

    @Test("a request head trickling in slower than the header timeout gets its connection closed")
    func slowHead() async throws {
        try await Self.withServer(configure: { $0.headerTimeoutSeconds = 1 }) { api, _, _ in
            let connection = try await RawConnection.connect(port: api)
            let started = ContinuousClock.now
            try await connection.send("GET /thing/x HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            #expect(try await connection.trickle { "X-Slow-\($0): a\r\n" })
            #expect(ContinuousClock.now - started < .seconds(8))
            await connection.close()

            // Idle keep-alive connections are not affected: the timeout starts with a request's first byte.
            let idle = try await RawConnection.connect(port: api)
            try await Task.sleep(for: .milliseconds(1_500))
            try await idle.send(Self.request("GET", "/thing/x"))
            #expect(try await idle.response()?.status == 404)
            try await Task.sleep(for: .milliseconds(1_500))
            try await idle.send(Self.request("GET", "/thing/x"))
            #expect(try await idle.response()?.status == 404)
            await idle.close()
        }
    }

    @Test("a listener holds at most limits.max_connections connections")
    func connectionCap() async throws {
        try await Self.withServer(configure: { $0.maxConnections = 3 }) { api, push, log in
            // Five connections; the live test client holds one of the three.
            var held = try await Self.connectionsHeld(of: 5, port: api)
            #expect(held.count == 2, "\(held.count) of 5 connections held")
            #expect(log.all.contains { $0.message.hasPrefix("Connection refused") && $0.level == .warning })
            // The push listener counts its own connections.
            let pushConnection = try await RawConnection.connect(port: push)
            #expect(!(try await pushConnection.closedByServer(within: .milliseconds(300))))
            await pushConnection.close()
            // Once one closes, a new connection is served again.
            await held.removeFirst().close()
            #expect(try await Self.servedAgain(port: api))
            for connection in held { await connection.close() }
        }
    }

    /// Opens `count` connections and watches them together for a generous while (on a loaded
    /// machine the server may close a refused connection only after the next one was opened, so
    /// a short window per connection could count a refused one as held); closes the refused
    /// ones and returns the others, each checked to be served.
    static func connectionsHeld(of count: Int, port: Int) async throws -> [RawConnection] {
        var opened: [RawConnection] = []
        for _ in 0..<count { opened.append(try await RawConnection.connect(port: port)) }
        let closed = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for (index, connection) in opened.enumerated() {
                group.addTask { (index, try await connection.closedByServer(within: .seconds(3))) }
            }
            return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        for index in opened.indices where closed[index] == true { await opened[index].close() }
        let held = opened.indices.filter { closed[$0] == false }.map { opened[$0] }
        for connection in held {
            try await connection.send(request("GET", "/thing/x"))
            #expect(try await connection.response()?.status == 404)
        }
        return held
    }

    /// Whether a new connection is served again, once one of those held closed (the server may
    /// learn of the close a moment later).
    static func servedAgain(port: Int) async throws -> Bool {
        for _ in 0..<50 {
            let again = try await RawConnection.connect(port: port)
            try? await again.send(request("GET", "/thing/x"))
            let served = try await again.response(timeout: .milliseconds(500))?.status == 404
            await again.close()
            if served { return true }
        }
        return false
    }

    @Test("one client address holds at most limits.max_connections_per_client connections; trusted proxies are not capped")
    func connectionCapPerClient() async throws {
        // The tests connect from loopback, a trusted proxy by default: trust none, so that they
        // are a client like any other.
        try await Self.withServer(configure: { $0.maxConnectionsPerClient = 3; $0.trustedProxies = .none }) { api, push, log in
            // As in `connectionCap`: the live test client holds one of the three.
            var held = try await Self.connectionsHeld(of: 5, port: api)
            #expect(held.count == 2, "\(held.count) of 5 connections held")
            #expect(log.all.contains { $0.message.hasPrefix("Connection refused: the client holds") && $0.metadata["sm.client"] == "127.0.0.1" })
            // Once one closes, the client is served again.
            await held.removeFirst().close()
            #expect(try await Self.servedAgain(port: api))
            for connection in held { await connection.close() }
        }
        // From a trusted proxy (loopback, the default), every connection is held: the proxy caps
        // its own clients.
        try await Self.withServer(configure: { $0.maxConnectionsPerClient = 3 }) { api, _, _ in
            var opened: [RawConnection] = []
            for _ in 0..<5 { opened.append(try await RawConnection.connect(port: api)) }
            for connection in opened {
                try await connection.send(Self.request("GET", "/thing/x"))
                #expect(try await connection.response()?.status == 404)
            }
            for connection in opened { await connection.close() }
        }
    }

    @Test("a new connection that sends no request head is closed after limits.new_connection_timeout_seconds; kept-alive ones wait the idle timeout")
    func silentNewConnection() async throws {
        try await Self.withServer(configure: { $0.newConnectionTimeoutSeconds = 5 }) { api, _, _ in
            // A connection that sent a request keeps the idle timeout (60 s) between requests.
            let kept = try await RawConnection.connect(port: api)
            try await kept.send(Self.request("GET", "/thing/x"))
            #expect(try await kept.response()?.status == 404)
            let silent = try await RawConnection.connect(port: api)
            // Half a head is not a head.
            let partial = try await RawConnection.connect(port: api)
            try await partial.send("GET /thing/x HTTP/1.1\r\n")
            #expect(try await silent.closedByServer(within: .seconds(30)))
            #expect(try await partial.closedByServer(within: .seconds(10)))
            // Accepted before the other two: past its own deadline as a new connection by now.
            #expect(!(try await kept.closedByServer(within: .milliseconds(100))))
            try await kept.send(Self.request("GET", "/thing/x"))
            #expect(try await kept.response()?.status == 404)
            for connection in [silent, partial, kept] { await connection.close() }
        }
    }

    @Test("a client that disconnects mid-body is logged as the client's, not as a server failure", arguments: [false, true])
    func disconnectMidBody(abortively: Bool) async throws {
        try await Self.withServer { api, _, log in
            let connection = try await RawConnection.connect(port: api)
            try await connection.send(Self.request("POST", "/thing", headers: ["Content-Length: 1000"], body: "{\"name\":"))
            try await Task.sleep(for: .milliseconds(200))
            if abortively {
                await connection.reset()
            } else {
                await connection.close()
            }
            let logged = try await eventually { log.all.contains { $0.message == "Request" && $0.metadata["sm.path"] == "/thing" } }
            #expect(logged)
            let line = try #require(log.all.first { $0.message == "Request" && $0.metadata["sm.path"] == "/thing" })
            #expect(line.metadata["sm.status"]?.hasPrefix("4") == true, "\(line.fullText)")
            #expect(!log.all.contains { $0.level >= .error }, "\(log.all.filter { $0.level >= .error }.map(\.fullText))")
        }
    }

    /// Starts the live server with a capturing log; hands `body` the API port, the push port and
    /// the log.
    static func withServer(
        configure: (inout StackMobConfiguration) -> Void = { _ in }, _ body: @Sendable (Int, Int, CapturingLogHandler.Store) async throws -> Void
    ) async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configure(&configuration)
            let store = CapturingLogHandler.Store()
            var logger = Logger(label: "stackmob-test") { _ in CapturingLogHandler(store: store) }
            logger.logLevel = .debug
            let pushPort = Mutex<Int?>(nil)
            let app = try await buildApplication(configuration: configuration, logger: logger) { port in
                pushPort.withLock { $0 = port }
            }
            try await app.test(.live) { client in
                let api = StackMobClient(client: client, publicKey: Self.key)
                // The test client's own connection opens first, so that the connection caps
                // count it before the body's and never refuse it.
                #expect(try await api.head("/").status == .ok)
                #expect(try await eventually { pushPort.withLock { $0 } != nil })
                try await body(api.port, try #require(pushPort.withLock { $0 }), store)
            }
        }
    }
}
