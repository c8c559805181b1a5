import Foundation
import Hummingbird
import HummingbirdTesting
import NIOPosix
import StackMobCore
import StackMobTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The HTTP/1.1 connection layer (`HTTP1Connection`), byte for byte over a real socket: requests
/// pipelined, bodies arriving in pieces or larger than what is collected whole, connections the
/// client ends, and a shutdown with a request under way. Malformed and slow requests:
/// `MalformedRequestTests`; the same connection layer with time moved rather than waited for:
/// `HTTP1ConnectionHandlerTests`.
@Suite("HTTP/1.1 connections", .tags(.timing))
struct HTTP1ConnectionTests {
    static let key = TestServer.developmentPublicKey

    static func request(_ method: String, _ path: String, headers: [String] = [], body: String = "", version: String = "HTTP/1.1") -> String {
        var lines = ["\(method) \(path) \(version)", "Host: 127.0.0.1", "Accept: application/vnd.stackmob+json; version=0", "X-StackMob-API-Key: \(key)"]
        if !body.isEmpty { lines.append("Content-Length: \(body.utf8.count)") }
        return (lines + headers).joined(separator: "\r\n") + "\r\n\r\n" + body
    }

    @Test("pipelined requests are answered one by one, in order, each with Date and Server")
    func pipelined() async throws {
        try await TestServer.run { client in
            let connection = try await RawConnection.connect(port: client.port)
            // Three requests in one write: a create, a read of what it created, and a miss.
            try await connection.send(
                Self.request("POST", "/pipe", body: #"{"pipe_id":"p1","n":1}"#) + Self.request("GET", "/pipe/p1") + Self.request("GET", "/pipe/none"))
            let created = try #require(try await connection.response())
            let read = try #require(try await connection.response())
            let missing = try #require(try await connection.response())
            #expect(created.status == 201, "\(created.body)")
            #expect(read.status == 200 && read.body.contains(#""n":1"#), "\(read.body)")
            #expect(missing.status == 404)
            for response in [created, read, missing] {
                #expect(response.headers["server"] == "StackMob Server")
                let date = try #require(response.headers["date"])
                #expect(date.hasSuffix(" GMT") && date.count == 29, "\(date)")
            }
            #expect(!(try await connection.closedByServer(within: .milliseconds(200))))
            await connection.close()
        }
    }

    @Test("a body sent in pieces, and one larger than what is read whole, reach their route whole", arguments: [1_000, 300_000])
    func bodies(size: Int) async throws {
        try await TestServer.run { client in
            let connection = try await RawConnection.connect(port: client.port)
            let text = String(repeating: "x", count: size)
            let body = #"{"big_id":"b\#(size)","text":"\#(text)"}"#
            let request = Self.request("POST", "/big", body: body)
            // The head alone, then the body in five pieces with pauses between them.
            let head = String(request.utf8.prefix(request.utf8.count - body.utf8.count))!
            try await connection.send(head)
            let pieces = stride(from: 0, to: body.utf8.count, by: body.utf8.count / 5 + 1).map { start in
                String(body.utf8.dropFirst(start).prefix(body.utf8.count / 5 + 1))!
            }
            for piece in pieces {
                try await Task.sleep(for: .milliseconds(30))
                try await connection.send(piece)
            }
            let created = try #require(try await connection.response())
            #expect(created.status == 201, "\(created.body.prefix(300))")
            let stored = try await client.get("/big/b\(size)")
            #expect(stored.object?["text"]?.stringValue?.count == size)
            await connection.close()
        }
    }

    @Test("a body past the limit is refused while it streams, and the connection is not held", arguments: [false, true])
    func tooLarge(chunked: Bool) async throws {
        try await TestServer.run(configure: { $0.maxBodyBytes = 100_000 }) { client in
            let connection = try await RawConnection.connect(port: client.port)
            let text = String(repeating: "y", count: 400_000)
            if chunked {
                let chunk = String(text.utf8.count, radix: 16)
                try await connection.send(
                    Self.request("POST", "/big", headers: ["Transfer-Encoding: chunked"]) + "\(chunk)\r\n\(text)\r\n0\r\n\r\n")
            } else {
                try await connection.send(Self.request("POST", "/big", body: text))
            }
            let refused = try #require(try await connection.response())
            #expect(refused.status == 413, "\(refused.body)")
            // The rest of the body was read and dropped: the connection serves the next request.
            try await connection.send(Self.request("GET", "/big/none"))
            #expect(try await connection.response()?.status == 404)
            await connection.close()
        }
    }

    @Test("Connection: close and HTTP/1.0 end the connection after the answer")
    func clientCloses() async throws {
        try await TestServer.run { client in
            for (headers, version) in [(["Connection: close"], "HTTP/1.1"), ([], "HTTP/1.0")] {
                let connection = try await RawConnection.connect(port: client.port)
                try await connection.send(Self.request("GET", "/thing/none", headers: headers, version: version))
                #expect(try await connection.response()?.status == 404, "\(version) \(headers)")
                #expect(try await connection.closedByServer(within: .seconds(5)), "\(version) \(headers)")
                await connection.close()
            }
            // HTTP/1.0 asking to be kept alive is.
            let keptAlive = try await RawConnection.connect(port: client.port)
            for _ in 0..<2 {
                try await keptAlive.send(Self.request("GET", "/thing/none", headers: ["Connection: keep-alive"], version: "HTTP/1.0"))
                #expect(try await keptAlive.response()?.status == 404)
            }
            #expect(!(try await keptAlive.closedByServer(within: .milliseconds(200))))
            await keptAlive.close()
        }
    }

    @Test("a client that half-closes after its request still gets its answer, then the connection closes")
    func halfClosed() async throws {
        try await TestServer.run { client in
            let connection = try await RawConnection.connect(port: client.port)
            try await connection.send(Self.request("POST", "/half", body: #"{"half_id":"h1"}"#))
            try await connection.closeOutput()
            let created = try #require(try await connection.response())
            #expect(created.status == 201, "\(created.body)")
            #expect(try await connection.closedByServer(within: .seconds(5)))
            #expect(try await client.get("/half/h1").status == .ok)
        }
    }

    @Test("a client that half-closes and reads slowly gets the whole of a response larger than the sockets' buffers")
    func halfClosedSlowReader() async throws {
        // 24 MB: more than the kernel's send and receive buffers hold together on loopback, so
        // most of the response is still queued in the server when it learns the client is done.
        let size = 24_000_000
        try await TestServer.run(configure: { $0.maxBodyBytes = 30_000_000 }) { client in
            // Stored over a raw connection that waits a minute for the answer: in a loaded test
            // run, a debug build storing 24 MB outlasted the test client's 20 s read timeout.
            let writer = try await RawConnection.connect(port: client.port)
            try await writer.send(Self.request("POST", "/huge", body: #"{"huge_id":"h1","text":"\#(String(repeating: "z", count: size))"}"#))
            let created = try #require(try await writer.response(timeout: .seconds(60)))
            #expect(created.status == 201)
            await writer.close()
            // On a thread of its own: it blocks, and the two threads of Swift's shared pool run the
            // rest of the suite.
            let answer = try await NIOThreadPool.singleton.runIfActive {
                try SlowReader.exchange(port: client.port, request: Self.request("GET", "/huge/h1"), pause: .milliseconds(1_500))
            }
            let head = try #require(answer.firstRange(of: Array("\r\n\r\n".utf8)), "no response head")
            let headText = String(decoding: answer[..<head.lowerBound], as: UTF8.self)
            #expect(headText.hasPrefix("HTTP/1.1 200"), "\(headText)")
            let length = try #require(
                headText.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) })
            #expect(length > size)
            #expect(answer.count - head.upperBound == length, "received \(answer.count - head.upperBound) of \(length) body bytes")
        }
    }

    @Test("an idle connection is closed after limits.idle_timeout_seconds")
    func idleTimeout() async throws {
        // Three seconds: a loaded test run can pause the client for a second or more. That a
        // busy connection is not closed, and that the timeout counts from the last answer, is
        // shown with a moved clock (`HTTP1ConnectionHandlerTests.idleTimeout`); this shows the
        // setting reaching the connections.
        try await TestServer.run(configure: { $0.idleTimeoutSeconds = 3 }) { client in
            let idle = try await RawConnection.connect(port: client.port)
            try await idle.send(Self.request("GET", "/thing/none"))
            #expect(try await idle.response()?.status == 404)
            #expect(!(try await idle.closedByServer(within: .milliseconds(100))))
            #expect(try await idle.closedByServer(within: .seconds(8)))
            await idle.close()
        }
    }

    @Test("on SIGTERM the requests under way or read are answered, an idle connection is closed, and the server exits cleanly")
    func gracefulShutdown() async throws {
        let hooks = Router()
        hooks.post("/slow") { _, _ -> String in
            try await Task.sleep(for: .milliseconds(1_500))
            return "late"
        }
        try await Application(router: hooks, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { hook in
            let hookPort = try #require(hook.port)
            try await TestServer.withDataDirectory { directory in
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                let server = try ServerProcess(
                    arguments: ["serve", "--port", "0"], directory: directory,
                    environment: [
                        "STACKMOB_PUSH__PORT": "0",
                        "STACKMOB_ENVIRONMENTS__DEVELOPMENT__PUBLIC_KEY": Self.key,
                        "STACKMOB_ENVIRONMENTS__DEVELOPMENT__CUSTOM_CODE": #"{"slow":"http://127.0.0.1:\#(hookPort)/slow"}"#,
                    ])
                let port = try #require(try await server.listeningPort(), "server did not start: \(server.log)")
                let idle = try await RawConnection.connect(port: port)
                try await idle.send(Self.request("GET", "/thing/none"))
                #expect(try await idle.response()?.status == 404)
                let busy = try await RawConnection.connect(port: port)
                // A request pipelined behind the slow one is read before the shutdown: it is
                // answered too.
                try await busy.send(Self.request("GET", "/slow") + Self.request("GET", "/thing/none"))
                try await Task.sleep(for: .milliseconds(300))
                server.send(signal: SIGTERM)
                #expect(try await idle.closedByServer(within: .seconds(5)))
                let answered = try #require(try await busy.response(), "\(server.log.suffix(2_000))")
                #expect(answered.status == 200, "\(answered.body)")
                #expect(answered.body == "late")
                let pipelined = try #require(try await busy.response(), "\(server.log.suffix(2_000))")
                #expect(pipelined.status == 404)
                #expect(try await busy.closedByServer(within: .seconds(5)))
                #expect(await server.waitForExit() == 0, "\(server.log.suffix(2_000))")
                await idle.close()
                await busy.close()
            }
        }
    }

    @Test("a client that pipelines requests and reads none of the answers makes the server stop, not pile the answers up; a reader gets them all")
    func unreadAnswers() async throws {
        try await TestServer.run { client in
            let big: JSONValue = ["big_id": "b1", "text": .string(String(repeating: "x", count: 512 * 1024))]
            #expect(try await client.post("/big", big).status == .created)
            let requests = String(repeating: Self.request("GET", "/big/b1"), count: 100)
            let before = try await Self.answered(client)
            // 100 answers of 512 KiB asked for at once, none read: at most what the socket
            // buffers hold is answered (a few), not 50 MiB kept in the server's memory.
            let socket = try SlowReader.connect(port: client.port, receiveBuffer: 64 * 1024)
            defer { Glibc.close(socket) }
            let bytes = Array(requests.utf8)
            #expect(bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, 0) } == bytes.count)
            try await Task.sleep(for: .seconds(2))
            let answered = try await Self.answered(client) - before
            let series = try await client.withoutKey.get("/metrics").text.split(separator: "\n").filter { $0.hasPrefix("stackmob_http_requests_total{") }
            #expect(answered >= 1 && answered <= 20, "\(answered) of 100 answered while none was read: \(series)")
            // A client that reads gets every pipelined answer: reading resumes as the socket drains.
            let reader = try await RawConnection.connect(port: client.port)
            try await reader.send(String(repeating: Self.request("GET", "/big/b1"), count: 5))
            for index in 0..<5 {
                let response = try #require(try await reader.response(), "answer \(index)")
                #expect(response.status == 200 && response.body.utf8.count > 512 * 1024)
            }
            await reader.close()
        }
    }

    @Test(
        "a client that takes none of its answers for limits.idle_timeout_seconds is disconnected, and the answers it held let go",
        .disabled(if: TestServer.onHummingbirdChannel, "Hummingbird's channel has no deadline for output a client does not take"))
    func stalledOutput() async throws {
        try await TestServer.run(configure: { $0.idleTimeoutSeconds = 1 }) { client in
            // Created on a connection of its own: on a busy machine, the one-second idle timeout
            // may close the test client's pooled connection just as the client reuses it.
            let creating = try await RawConnection.connect(port: client.port)
            try await creating.send(Self.request("POST", "/big", body: #"{"big_id":"b1","text":""# + String(repeating: "x", count: 512 * 1024) + #""}"#))
            #expect(try await creating.response()?.status == 201)
            await creating.close()
            // Thirty answers of 512 KiB asked for at once (more than the kernel's buffers take);
            // none read for three idle timeouts.
            let socket = try SlowReader.connect(port: client.port, receiveBuffer: 64 * 1024)
            defer { Glibc.close(socket) }
            let bytes = Array(String(repeating: Self.request("GET", "/big/b1"), count: 30).utf8)
            #expect(bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, 0) } == bytes.count)
            try await Task.sleep(for: .seconds(3))
            // Then read to the end. Still connected, the server would send all thirty answers (and
            // close only once idle after them); disconnected, only what the kernel's buffers held
            // arrives.
            let received = try await NIOThreadPool.singleton.runIfActive { try SlowReader.readToEnd(socket, timeout: .seconds(20)) }
            #expect(received.ended, "the connection was still open after 20 s of reading")
            #expect(received.count < 30 * 512 * 1024, "\(received.count) bytes arrived: every answer was sent")
        }
    }

    /// Requests answered so far, from `/metrics` (`stackmob_http_requests_total`).
    static func answered(_ client: StackMobClient) async throws -> Int {
        let text = try await client.withoutKey.get("/metrics").text
        return text.split(separator: "\n").filter { $0.hasPrefix("stackmob_http_requests_total{") && $0.contains("method=\"GET\"") && $0.contains("{id}") }
            .compactMap { Double($0.split(separator: " ").last ?? "").map(Int.init) }.reduce(0, +)
    }
}

/// A client on a plain blocking socket that sends its request, closes its side, waits, then
/// reads: NIO's clients read as soon as bytes arrive, so they never leave a server's writes
/// queued.
enum SlowReader {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A socket connected to the server on loopback; with `receiveBuffer`, its receive buffer is
    /// that many bytes.
    static func connect(port: Int, receiveBuffer: Int32? = nil) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        if var size = receiveBuffer {
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(socket)
            throw Failure(description: "connect: errno \(errno)")
        }
        return socket
    }

    /// Reads `socket` until the server ends the connection or `timeout` passes: how many bytes
    /// arrived, and whether the connection ended.
    static func readToEnd(_ socket: Int32, timeout: Duration) throws -> (count: Int, ended: Bool) {
        var wait = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let deadline = ContinuousClock.now + timeout
        var count = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while ContinuousClock.now < deadline {
            let read = buffer.withUnsafeMutableBytes { Glibc.recv(socket, $0.baseAddress, $0.count, 0) }
            if read > 0 {
                count += read
            } else if read < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) {
                continue
            } else {
                // The end of the stream, or a reset.
                return (count, true)
            }
        }
        return (count, false)
    }

    /// Everything the server sent until it closed the connection.
    static func exchange(port: Int, request: String, pause: Duration) throws -> [UInt8] {
        let socket = try connect(port: port)
        defer { Glibc.close(socket) }
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ Glibc.send(socket, $0.baseAddress, $0.count, 0) }) == bytes.count else {
            throw Failure(description: "send: errno \(errno)")
        }
        Glibc.shutdown(socket, Int32(SHUT_WR))
        Thread.sleep(forTimeInterval: pause / .seconds(1))
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(socket, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                answer.append(contentsOf: buffer[..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                // The end of the stream, or a reset: what arrived is the answer.
                return answer
            }
        }
    }
}
