import StackMobCore
import StackMobTestSupport
import Testing

/// `listen.http1_channel: hummingbird`: every listener runs Hummingbird's `HTTP1Channel` (its
/// start-up line says so), with the guards of the server's own layer. The whole suite runs on it
/// in the `hummingbird` tier of scripts/test.sh; this suite checks it on every run.
@Suite("Hummingbird's HTTP/1.1 channel")
struct HummingbirdChannelTests {
    static let startLine = "Listener runs Hummingbird's HTTP1Channel"

    @Test("with the setting, each listener says it runs Hummingbird's channel; without it, none does")
    func startLine() async throws {
        try await MalformedRequestTests.withServer(configure: { $0.http1Channel = .hummingbird }) { _, _, log in
            let lines = log.all.filter { $0.message == Self.startLine }
            // The API's and the push host's.
            #expect(lines.count == 2, "\(lines.map(\.fullText))")
            #expect(lines.allSatisfy { $0.metadata["sm.http1_channel"] == "hummingbird" })
        }
        try await MalformedRequestTests.withServer(configure: { $0.http1Channel = .native }) { _, _, log in
            #expect(!log.all.contains { $0.message == Self.startLine })
        }
    }

    @Test("on Hummingbird's channel one client address holds at most limits.max_connections_per_client connections")
    func connectionCapPerClient() async throws {
        // Loopback is a trusted proxy by default: trust none, so that the test is a client.
        try await MalformedRequestTests.withServer(configure: {
            $0.http1Channel = .hummingbird
            $0.maxConnectionsPerClient = 3
            $0.trustedProxies = .none
        }) { api, _, log in
            #expect(log.all.contains { $0.message == Self.startLine })
            // The live test client holds one of the three.
            var held = try await MalformedRequestTests.connectionsHeld(of: 5, port: api)
            #expect(held.count == 2, "\(held.count) of 5 connections held")
            #expect(log.all.contains { $0.message.hasPrefix("Connection refused: the client holds") && $0.metadata["sm.client"] == "127.0.0.1" })
            await held.removeFirst().close()
            #expect(try await MalformedRequestTests.servedAgain(port: api))
            for connection in held { await connection.close() }
        }
    }

    @Test("on Hummingbird's channel a new connection that sends no request head is closed after limits.new_connection_timeout_seconds")
    func silentNewConnection() async throws {
        try await MalformedRequestTests.withServer(configure: {
            $0.http1Channel = .hummingbird
            // Not less: the live test client connects at start and asks its first question later,
            // on a machine loaded by the rest of the suite several seconds later.
            $0.newConnectionTimeoutSeconds = 10
        }) { api, _, _ in
            let kept = try await RawConnection.connect(port: api)
            try await kept.send(MalformedRequestTests.request("GET", "/thing/x"))
            #expect(try await kept.response()?.status == 404)
            let silent = try await RawConnection.connect(port: api)
            #expect(try await silent.closedByServer(within: .seconds(40)))
            // The kept-alive connection waits the idle timeout (60 s) instead.
            #expect(!(try await kept.closedByServer(within: .milliseconds(100))))
            try await kept.send(MalformedRequestTests.request("GET", "/thing/x"))
            #expect(try await kept.response()?.status == 404)
            for connection in [silent, kept] { await connection.close() }
        }
    }
}
