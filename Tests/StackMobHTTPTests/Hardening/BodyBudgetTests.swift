import Foundation
import StackMobCore
import StackMobTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One client, or many, cannot make the server hold more request bodies, or answers not yet
/// taken, in memory than `limits.max_body_bytes_per_client` and `limits.max_body_bytes_in_flight`
/// allow, nor turn a body into many times its size once parsed (docs/operations.md, "Limits").
@Suite("Request bodies and answers held at once, and a body's parsed size")
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

    /// A connection from `client` holding `body` begun: its head and first thousand bytes sent,
    /// the rest awaited, so that the body is counted from then on. Begun again while the server
    /// refuses it: on a busy machine, the share of an exchange the test has just finished may
    /// not have been given back yet.
    static func begin(_ body: String, from client: String, port: Int) async throws -> RawConnection {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let connection = try await RawConnection.connect(port: port)
            try await connection.send(head(bytes: body.utf8.count, client: client) + String(body.prefix(1000)))
            guard let refused = try await connection.response(timeout: .milliseconds(300)) else { return connection }
            await connection.close()
            try #require(ContinuousClock.now < deadline, "a body from \(client) was refused: \(refused.status) \(refused.body)")
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test("a client whose large bodies fill its share is refused with a 503 and Retry-After; another client, and small bodies, go on; the share returns when the bodies end")
    func perClientAndTotal() async throws {
        try await TestServer.run(configure: Self.smallBudgets) { client in
            // Client A declares a body of the whole limit and sends a first piece of it: the body
            // is counted from its head on, while the rest is awaited.
            let body = Self.body(bytes: Self.megabyte)
            let held = try await Self.begin(body, from: "203.0.113.5", port: client.port)
            // Once A's head is in, A's next large body has no room. Given half a minute: on a
            // busy machine the server may take seconds to reach the held head.
            let refused = Mutex<RawConnection.Response?>(nil)
            let answered = Mutex<[Int]>([])
            #expect(
                try await eventually(seconds: 30) {
                    let response = try await Self.counted(from: "203.0.113.5", port: client.port)
                    answered.withLock { $0.append(response.status) }
                    if response.status == 503 { refused.withLock { $0 = response } }
                    return response.status == 503
                })
            let heldAnswer = try await held.response(timeout: .milliseconds(20)).map { "answered \($0.status) \($0.body)" }
            let heldClosed = try await held.closedByServer(within: .zero)
            let heldState = heldAnswer ?? (heldClosed ? "closed unanswered" : "open")
            let answer = try #require(refused.withLock { $0 }, "A's bodies were answered \(answered.withLock { $0 }); its held body: \(heldState)")
            #expect(answer.headers["retry-after"] == "1" && answer.headers["connection"] == "close", "\(answer.headers)")
            #expect(answer.body.contains("Too many large request bodies from this client at once"), "\(answer.body)")
            // Another client's large body, and A's small ones, go through.
            #expect(try await Self.counted(from: "203.0.113.6", port: client.port).status == 201)
            #expect(try await client.post("/note", ["text": "small"]).status == .created)

            // B holds the rest of the listener's budget: a third client has no room either.
            let second = try await Self.begin(body, from: "203.0.113.6", port: client.port)
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

    /// A read of `path` from `client`, on a new connection, and its answer.
    static func read(_ path: String, from client: String, port: Int, headers: [String] = []) async throws -> RawConnection.Response {
        let connection = try await RawConnection.connect(port: port)
        defer { Task { await connection.close() } }
        try await connection.send(HTTP1ConnectionTests.request("GET", path, headers: ["X-Forwarded-For: \(client)"] + headers))
        return try #require(try await connection.response(timeout: .seconds(60)))
    }

    /// A read of `path` from `client` on a socket that takes almost nothing of its answer
    /// (`SlowReader`), once the server has begun to answer it with a 200: from then on, the
    /// answer waits in the server for as long as the socket stays open. Asked again while the
    /// server refuses it: on a busy machine, the answer to an earlier read may not have been
    /// given back yet.
    static func unread(_ path: String, from client: String, port: Int, method: String = "GET", body: String = "") async throws -> Int32 {
        let request = Array(HTTP1ConnectionTests.request(method, path, headers: ["X-Forwarded-For: \(client)"], body: body).utf8)
        // Generous: a debug build reading and writing an object of megabytes while the whole
        // suite runs beside it can take seconds.
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let socket = try SlowReader.connect(port: port, receiveBuffer: 4096)
            let sent = request.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, 0) }
            var status = [UInt8](repeating: 0, count: 12)
            var peeked = 0
            // Peeked, not read, so the answer stays where it is; and without blocking, for the
            // server answering runs in this process, on the same threads as the test.
            while sent == request.count, peeked < 12, ContinuousClock.now < deadline {
                peeked = status.withUnsafeMutableBytes { Glibc.recv(socket, $0.baseAddress, $0.count, Int32(MSG_PEEK | MSG_DONTWAIT)) }
                if peeked == 0 { break }
                if peeked < 12 { try await Task.sleep(for: .milliseconds(10)) }
            }
            if peeked == 12, String(decoding: status, as: UTF8.self) == "HTTP/1.1 200" { return socket }
            Glibc.close(socket)
            try #require(ContinuousClock.now < deadline, "\(path) from \(client) was not answered with a 200")
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Bodies and answers of up to 8 MiB, one client's share 8 MiB, 16 in all: an answer of 6 MiB
    /// is more than the kernel's buffers on loopback take from a socket whose client reads nothing
    /// (about 4 MiB), so part of it waits in the server.
    static func answerBudgets(_ configuration: inout StackMobConfiguration) {
        configuration.maxBodyBytes = 8 * megabyte
        configuration.maxBodyBytesPerClient = 8 * megabyte
        configuration.maxBodyBytesInFlight = 16 * megabyte
    }

    /// Stores an object of 6 MiB under each id in `big`, with `n` 0.
    static func storeLarge(_ ids: [String], with client: StackMobClient) async throws {
        let text = String(repeating: "x", count: 6 * megabyte)
        for id in ids {
            #expect(try await client.post("/big", ["big_id": .string(id), "n": 0, "text": .string(text)]).status == .created)
        }
    }

    /// The answers' tests need the server's own connection layer.
    static let answersTaken = ConditionTrait.disabled(
        if: TestServer.onHummingbirdChannel, "Hummingbird's channel gives a part back once queued, not once taken")

    @Test(
        "answers a client does not take hold its share: its next large answer is refused with a 503 and Retry-After, another client's and its small ones go on; the share returns when the connections end",
        answersTaken)
    func answers() async throws {
        try await TestServer.run(configure: Self.answerBudgets) { client in
            // Objects of 6 MiB: a read of one is a whole answer of that length; a list of the
            // three, larger than a batch, is streamed an object at a time.
            try await Self.storeLarge(["b0", "b1", "b2"], with: client)
            #expect(try await client.post("/small", ["small_id": "s1", "text": "small"]).status == .created)
            // Client A asks for one object and takes nothing of it: what the kernel does not take
            // waits in the server, and the answer's 6 MiB are held against A's 8 MiB share.
            var open: [Int32] = []
            defer { for socket in open { Glibc.close(socket) } }
            let whole = try await Self.unread("/big/b0", from: "203.0.113.20", port: client.port)
            open.append(whole)
            let refused = try await Self.read("/big/b1", from: "203.0.113.20", port: client.port)
            #expect(refused.status == 503 && refused.headers["retry-after"] == "1" && refused.headers["connection"] != "close", "\(refused.headers)")
            #expect(refused.body.contains("Too many large answers to this client at once"), "\(refused.body)")
            // A's small answers, and another client's large one, go on.
            #expect(try await Self.read("/small/s1", from: "203.0.113.20", port: client.port).status == 200)
            let other = try await Self.read("/big/b1", from: "203.0.113.21", port: client.port)
            #expect(other.status == 200 && other.body.utf8.count > 6 * Self.megabyte)
            // Written in parts, still one answer of its declared length.
            #expect(other.headers["content-length"] == String(other.body.utf8.count) && other.headers["transfer-encoding"] == nil)
            #expect(other.body.hasSuffix("\"}"), "\(other.body.suffix(40))")
            // The list, streamed to a third client, which takes nothing of it either: its first
            // part holds that client's share, and with A's answer 12 of the listener's 16 MiB, so
            // that a fourth client's large answer has no room.
            let list = try await Self.unread("/big", from: "203.0.113.22", port: client.port)
            open.append(list)
            let own = try await Self.read("/big/b2", from: "203.0.113.22", port: client.port)
            #expect(own.status == 503 && own.body.contains("Too many large answers to this client at once"), "\(own.status) \(own.body)")
            let fourth = try await Self.read("/big/b2", from: "203.0.113.23", port: client.port)
            #expect(fourth.status == 503 && fourth.body.contains("Too many large answers at once"), "\(fourth.status) \(fourth.body)")
            // The clients close their connections, the answers unread (the kernel resets them):
            // what was left to send is dropped, and the room comes back.
            for socket in open { Glibc.close(socket) }
            open = []
            #expect(try await eventually { try await Self.read("/big/b1", from: "203.0.113.20", port: client.port).status == 200 })
            #expect(try await eventually { try await Self.read("/big/b2", from: "203.0.113.23", port: client.port).status == 200 })
        }
    }

    @Test(
        "a write's answer is never refused, the write being done, but counts past the share: a client whose unread answers used its share up may start no further write",
        answersTaken)
    func writeAnswers() async throws {
        try await TestServer.run(configure: Self.answerBudgets) { client in
            try await Self.storeLarge(["b0"], with: client)
            // Two updates from A, each answered with the whole object of 6 MiB, neither taken: the
            // second passes A's 8 MiB share and is answered all the same.
            var open: [Int32] = []
            defer { for socket in open { Glibc.close(socket) } }
            for n in 1...2 {
                open.append(try await Self.unread("/big/b0", from: "203.0.113.30", port: client.port, method: "PUT", body: #"{"n":\#(n)}"#))
            }
            // A third update is refused before it is read or done; another client's goes on.
            let connection = try await RawConnection.connect(port: client.port)
            let update = HTTP1ConnectionTests.request("PUT", "/big/b0", headers: ["X-Forwarded-For: 203.0.113.30"], body: #"{"n":3}"#)
            try? await connection.send(update)
            let refused = try #require(try await connection.response())
            await connection.close()
            #expect(refused.status == 503 && refused.headers["retry-after"] == "1", "\(refused.status) \(refused.headers)")
            #expect(refused.body.contains("Too many large answers to this client at once"), "\(refused.body)")
            // (Its field alone: with A's 12 MiB, the listener has no room for the whole object.)
            let stored = try await Self.read("/big/b0", from: "203.0.113.31", port: client.port, headers: ["X-StackMob-Select: n"])
            #expect(stored.status == 200 && stored.body.contains(#""n":2"#), "\(stored.status) \(stored.body)")
            #expect(try await Self.read("/small/none", from: "203.0.113.31", port: client.port).status == 404)
            let other = try await RawConnection.connect(port: client.port)
            try await other.send(HTTP1ConnectionTests.request("PUT", "/big/b0", headers: ["X-Forwarded-For: 203.0.113.31"], body: #"{"n":4}"#))
            #expect(try await other.response()?.status == 200)
            await other.close()
            // Once A has closed its connections, it may write again.
            for socket in open { Glibc.close(socket) }
            open = []
            let again = HTTP1ConnectionTests.request("PUT", "/big/b0", headers: ["X-Forwarded-For: 203.0.113.30"], body: #"{"n":5}"#)
            #expect(
                try await eventually {
                    let connection = try await RawConnection.connect(port: client.port)
                    defer { Task { await connection.close() } }
                    try? await connection.send(again)
                    return try await connection.response()?.status == 200
                })
        }
    }

    @Test(
        "a GET that may have done something (custom code, whose webhook has run) is answered whatever the client holds: refused, the SDK would call it again",
        answersTaken)
    func customCodeAnswers() async throws {
        try await CustomCodeTests.run(configure: Self.answerBudgets) { client in
            try await Self.storeLarge(["b0", "b1"], with: client)
            var open: [Int32] = []
            defer { for socket in open { Glibc.close(socket) } }
            open.append(try await Self.unread("/big/b0", from: "203.0.113.40", port: client.port))
            // A's share is taken: a large read is refused, the custom code's answer is not.
            #expect(try await Self.read("/big/b1", from: "203.0.113.40", port: client.port).status == 503)
            let custom = try await Self.read("/large", from: "203.0.113.40", port: client.port)
            #expect(custom.status == 200 && custom.body.utf8.count > 3 << 20, "\(custom.status) \(custom.body.prefix(200))")
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
