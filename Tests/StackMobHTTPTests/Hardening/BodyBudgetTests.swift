import Foundation
import StackMobCore
import StackMobTestSupport
import Synchronization
import Testing

/// One client, or many, cannot make the server hold more request bodies in memory than
/// `limits.max_body_bytes_per_client` and `limits.max_body_bytes_in_flight` allow, nor turn a
/// body into many times its size once parsed (docs/operations.md, "Limits").
@Suite("Request bodies held at once, and their parsed size")
struct BodyBudgetTests {
    static let key = TestServer.developmentPublicKey
    static let megabyte = 1024 * 1024

    /// The head of a create of `bytes` bytes, from `client` (forwarded by the loopback proxy,
    /// which the tests' configuration trusts).
    static func head(bytes: Int, client: String, path: String = "/note") -> String {
        [
            "POST \(path) HTTP/1.1", "Host: 127.0.0.1", "Accept: application/vnd.stackmob+json; version=0", "X-StackMob-API-Key: \(key)",
            "Content-Type: application/json", "Content-Length: \(bytes)", "X-Forwarded-For: \(client)",
        ].joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// Bodies of at most 1 MiB, one of them per client, two in all. The bodies the tests hold
    /// begun are given ten minutes: on a busy machine, the default 30 s can pass before the test
    /// ends them, and the server would then close their connections and give their room back.
    static func smallBudgets(_ configuration: inout StackMobConfiguration) {
        configuration.maxBodyBytes = megabyte
        configuration.maxBodyBytesPerClient = megabyte
        configuration.maxBodyBytesInFlight = 2 * megabyte
        configuration.bodyTimeoutSeconds = 600
    }

    /// A JSON object of exactly `bytes` bytes: `{"text":"xxx…"}`.
    static func body(bytes: Int) -> String {
        "{\"text\":\"" + String(repeating: "x", count: bytes - 11) + "\"}"
    }

    /// A whole request of a 100 KiB body (counted) from `client`, on a new connection, and its
    /// answer.
    ///
    /// A body with no room is refused before it is read: the server answers and ends its side of
    /// the connection while the client may still be sending. The test's client then fails that
    /// send (it closes at the server's end of stream) after the answer has arrived, so a failed
    /// send is not the test's failure; a missing answer is.
    static func counted(from client: String, port: Int, path: String = "/note", body: String = body(bytes: 100 * 1024)) async throws
        -> RawConnection.Response
    {
        let connection = try await RawConnection.connect(port: port)
        defer { Task { await connection.close() } }
        try? await connection.send(head(bytes: body.utf8.count, client: client, path: path) + body)
        return try #require(try await connection.response())
    }

    @Test("a client whose large bodies fill its share is refused with a 503 and Retry-After; another client, and small bodies, go on; the share returns when the bodies end")
    func perClientAndTotal() async throws {
        try await TestServer.run(configure: Self.smallBudgets) { client in
            // Client A declares a body of the whole limit and sends a first piece of it: the body
            // is counted from its head on, while the rest is awaited.
            let held = try await RawConnection.connect(port: client.port)
            let body = Self.body(bytes: Self.megabyte)
            try await held.send(Self.head(bytes: body.utf8.count, client: "203.0.113.5") + String(body.prefix(1000)))
            // Once A's head is in, A's next large body has no room.
            let refused = Mutex<RawConnection.Response?>(nil)
            #expect(
                try await eventually {
                    let response = try await Self.counted(from: "203.0.113.5", port: client.port)
                    if response.status == 503 { refused.withLock { $0 = response } }
                    return response.status == 503
                })
            let answer = try #require(refused.withLock { $0 })
            #expect(answer.headers["retry-after"] == "1" && answer.headers["connection"] == "close", "\(answer.headers)")
            #expect(answer.body.contains("Too many large request bodies from this client at once"), "\(answer.body)")
            // Another client's large body, and A's small ones, go through.
            #expect(try await Self.counted(from: "203.0.113.6", port: client.port).status == 201)
            #expect(try await client.post("/note", ["text": "small"]).status == .created)

            // B holds the rest of the listener's budget: a third client has no room either.
            let second = try await RawConnection.connect(port: client.port)
            try await second.send(Self.head(bytes: body.utf8.count, client: "203.0.113.6") + String(body.prefix(1000)))
            #expect(
                try await eventually {
                    let response = try await Self.counted(from: "203.0.113.7", port: client.port)
                    return response.status == 503 && response.body.contains("Too many large request bodies at once")
                })

            // The held bodies end: their room comes back.
            try await held.send(String(body.dropFirst(1000)))
            #expect(try await held.response()?.status == 201)
            try await second.send(String(body.dropFirst(1000)))
            #expect(try await second.response()?.status == 201)
            #expect(try await Self.counted(from: "203.0.113.5", port: client.port).status == 201)
            #expect(try await Self.counted(from: "203.0.113.7", port: client.port).status == 201)
            await held.close()
            await second.close()
        }
    }

    @Test("a small body of many values takes its parsed size from the client's share: refused with a 503 once read when that does not fit, the connection kept; alone it goes through")
    func parsedSize() async throws {
        try await TestServer.run(configure: Self.smallBudgets) { client in
            // The client holds 600 KiB of its 1 MiB share with a body it has only begun.
            let held = try await RawConnection.connect(port: client.port)
            let large = Self.body(bytes: 600 * 1024)
            try await held.send(Self.head(bytes: large.utf8.count, client: "203.0.113.10") + String(large.prefix(1000)))
            // 60 KiB of text, too little to count as it arrives; 30,000 values once parsed.
            let numbers = "{\"numbers\":[" + Array(repeating: "1", count: 30_000).joined(separator: ",") + "]}"
            let refused = Mutex<RawConnection.Response?>(nil)
            #expect(
                try await eventually {
                    let response = try await Self.counted(from: "203.0.113.10", port: client.port, body: numbers)
                    if response.status == 503 { refused.withLock { $0 = response } }
                    return response.status == 503
                })
            let answer = try #require(refused.withLock { $0 })
            #expect(answer.headers["retry-after"] == "1" && answer.headers["connection"] != "close", "\(answer.headers)")
            #expect(answer.body.contains("Too many large request bodies from this client at once"), "\(answer.body)")
            // A small write of few values goes through; another client's many values too.
            #expect(try await Self.counted(from: "203.0.113.10", port: client.port, body: Self.body(bytes: 2000)).status == 201)
            #expect(try await Self.counted(from: "203.0.113.11", port: client.port, body: numbers).status == 201)
            // Once the held body ends, the many values fit.
            try await held.send(String(large.dropFirst(1000)))
            #expect(try await held.response()?.status == 201)
            #expect(try await Self.counted(from: "203.0.113.10", port: client.port, body: numbers).status == 201)
            await held.close()
        }
    }

    @Test("the admin API's sign-in, which reads a body before anyone is known, is held to the same budgets")
    func adminSignIn() async throws {
        try await AdminAPITests.run(configure: Self.smallBudgets) { client in
            let held = try await RawConnection.connect(port: client.port)
            let body = Self.body(bytes: Self.megabyte)
            try await held.send(Self.head(bytes: body.utf8.count, client: "203.0.113.9", path: "/_admin/session") + String(body.prefix(1000)))
            #expect(
                try await eventually {
                    // Not JSON: a probe let through is a 400 at once, never a sign-in attempt,
                    // which the test's manual clock would hold in the throttle's delay.
                    try await Self.counted(from: "203.0.113.9", port: client.port, path: "/_admin/session", body: String(repeating: "x", count: 100 * 1024))
                        .status == 503
                })
            await held.close()
        }
    }

    @Test("a body of more values than a request may hold is refused with a 400 before it takes their memory")
    func tooManyValues() async throws {
        try await TestServer.run { client in
            let values = Array(repeating: "1", count: 200_001).joined(separator: ",")
            let refused = try await client.request(.post, "/note", rawBody: "{\"numbers\":[\(values)]}")
            #expect(refused.status == .badRequest)
            #expect(refused.error?.contains("more than 200000 values") == true, "\(refused.text.prefix(300))")
            let allowed = Array(repeating: "1", count: 199_000).joined(separator: ",")
            #expect(try await client.request(.post, "/note", rawBody: "{\"numbers\":[\(allowed)]}").status == .created)
        }
    }

    @Test("the budgets must hold a body of the limit: a smaller one is a configuration error; unset, they follow a larger limit")
    func configuration() throws {
        var raised = StackMobConfiguration()
        raised.maxBodyBytes = 100 * Self.megabyte
        try raised.validate()
        #expect(raised.maxBodyBytesPerClient == 100 * Self.megabyte && raised.maxBodyBytesInFlight == 256 * Self.megabyte)
        raised.maxBodyBytes = 300 * Self.megabyte
        #expect(raised.maxBodyBytesPerClient == 300 * Self.megabyte && raised.maxBodyBytesInFlight == 300 * Self.megabyte)
        var configuration = StackMobConfiguration()
        configuration.maxBodyBytesPerClient = configuration.maxBodyBytes - 1
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.maxBodyBytesPerClient = configuration.maxBodyBytes
        configuration.maxBodyBytesInFlight = configuration.maxBodyBytes - 1
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
    }
}
