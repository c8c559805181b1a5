import HTTPTypes
import NIOCore
import NIOEmbedded
import Testing

@testable import StackMobHTTPServer

/// `HTTP1ConnectionHandler` behind NIO's parser, on an `EmbeddedChannel`
/// (`EmbeddedHTTP1Connection`): the bytes a client sends, the bytes the server writes, and when
/// the connection closes, with time moved by the test rather than waited for. The same over a
/// real socket, with the app behind it: `HTTP1ConnectionTests`, `MalformedRequestTests`.
@Suite("HTTP/1.1 connection handler")
struct HTTP1ConnectionHandlerTests {
    typealias Connection = EmbeddedHTTP1Connection

    @Test("requests pipelined in one read are answered one by one, in order")
    func pipelining() throws {
        let connection = try Connection()
        try connection.send(
            Connection.request("GET", "/a") + Connection.request("POST", "/b", body: #"{"n":1}"#) + Connection.request("GET", "/c"))
        var paths: [String] = []
        for answer in ["A", "B", "C"] {
            let (request, exchange) = try #require(connection.nextRequest())
            paths.append(request.uri.path)
            // The next request waits until this one is answered.
            #expect(connection.nextRequest() == nil)
            connection.respond(exchange, body: answer)
        }
        #expect(paths == ["/a", "/b", "/c"])
        let answers = try connection.responses()
        #expect(answers.map(\.body) == ["A", "B", "C"])
        #expect(answers.allSatisfy { $0.status == 200 && $0.fields["server"] == "StackMob Server" && $0.fields["date"] != nil })
        #expect(connection.isOpen)
    }

    @Test("reading stops while a pipelined request waits, and goes on once it is taken")
    func pipelinedBackPressure() throws {
        let connection = try Connection()
        try connection.send(Connection.request("GET", "/a") + Connection.request("GET", "/b"))
        let (_, first) = try #require(connection.nextRequest())
        let before = connection.reads.count
        connection.channel.read()
        #expect(connection.reads.count == before)
        connection.respond(first, body: "A")
        // The held read goes on once the waiting request is handed over.
        #expect(connection.reads.count == before + 1)
        let (request, _) = try #require(connection.nextRequest())
        #expect(request.uri.path == "/b")
        connection.channel.read()
        #expect(connection.reads.count == before + 2)
    }

    @Test("on shutdown the request under way and the one pipelined behind it are answered, then the connection closes")
    func quiesce() throws {
        let connection = try Connection()
        try connection.send(Connection.request("GET", "/a") + Connection.request("GET", "/b"))
        let (_, first) = try #require(connection.nextRequest())
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(connection.isOpen)
        connection.respond(first, body: "A")
        let (_, second) = try #require(connection.nextRequest())
        #expect(connection.isOpen)
        connection.respond(second, body: "B")
        #expect(try connection.responses().map(\.body) == ["A", "B"])
        #expect(!connection.isOpen)
    }

    @Test("a half-close after a request: the answer is still written, then the connection closes")
    func halfCloseAfterRequest() throws {
        let connection = try Connection()
        try connection.send(Connection.request())
        connection.closeInput()
        #expect(connection.isOpen)
        let (_, exchange) = try #require(connection.nextRequest())
        connection.respond(exchange, body: "late")
        #expect(try connection.responses().map(\.body) == ["late"])
        #expect(!connection.isOpen)
    }

    @Test("a half-close while idle closes the connection")
    func halfCloseIdle() throws {
        let connection = try Connection()
        try connection.send(Connection.request())
        let (_, exchange) = try #require(connection.nextRequest())
        connection.respond(exchange, body: "first")
        #expect(connection.isOpen)
        connection.closeInput()
        #expect(!connection.isOpen)
        #expect(try connection.responses().map(\.body) == ["first"])
    }

    @Test("a new connection that sends no complete head is closed after the new-connection timeout", arguments: ["", "GET /thing HTTP/1.1\r\n"])
    func newConnectionTimeout(partialHead: String) throws {
        let connection = try Connection()
        if !partialHead.isEmpty { try connection.send(partialHead) }
        connection.advance(by: .seconds(5) - .nanoseconds(1))
        #expect(connection.isOpen)
        connection.advance(by: .nanoseconds(1))
        #expect(!connection.isOpen)
        #expect(try connection.written() == "")
    }

    @Test("a connection without a request is closed after the idle timeout, counted from its last answer")
    func idleTimeout() throws {
        let connection = try Connection()
        try connection.send(Connection.request())
        let (_, exchange) = try #require(connection.nextRequest())
        // A request under way: neither the new-connection nor the idle timeout applies.
        connection.advance(by: .seconds(90))
        #expect(connection.isOpen)
        connection.respond(exchange, body: "done")
        connection.advance(by: .seconds(60) - .nanoseconds(1))
        #expect(connection.isOpen)
        connection.advance(by: .nanoseconds(1))
        #expect(!connection.isOpen)
    }

    @Test("a head still incomplete after the head timeout closes the connection without an answer")
    func headTimeout() throws {
        let connection = try Connection()
        try connection.send(Connection.request())
        let (_, exchange) = try #require(connection.nextRequest())
        connection.respond(exchange, body: "first")
        connection.advance(by: .seconds(30))
        try connection.send("GET /thing HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        connection.advance(by: .seconds(10) - .nanoseconds(1))
        #expect(connection.isOpen)
        connection.advance(by: .nanoseconds(1))
        #expect(!connection.isOpen)
        #expect(try connection.responses().map(\.body) == ["first"])
    }

    @Test("a body still incomplete after the body timeout: its answer says Connection: close, then the connection closes")
    func bodyTimeout() throws {
        let connection = try Connection()
        try connection.send(Connection.request("POST", "/thing", headers: ["Content-Length: 10"]) + "{")
        let (request, exchange) = try #require(connection.nextRequest())
        #expect(request.uri.path == "/thing")
        connection.advance(by: .seconds(20))
        #expect(connection.isOpen)
        connection.respond(exchange, status: .requestTimeout, body: "late")
        let answers = try connection.responses()
        #expect(answers.map(\.status) == [408])
        #expect(answers.first?.fields["connection"] == "close")
        #expect(!connection.isOpen)
    }

    @Test(
        "a streamed response body is written whole before the connection closes",
        arguments: [("Connection: close", false), ("", true)])
    func streamedResponse(header: String, halfClosesMidway: Bool) throws {
        let connection = try Connection()
        try connection.send(Connection.request(headers: header.isEmpty ? [] : [header]))
        let (_, exchange) = try #require(connection.nextRequest())
        let chunk = ByteBuffer(repeating: UInt8(ascii: "z"), count: 10_000)
        var head: HTTPResponse? = HTTPResponse(status: .ok, headerFields: [.contentLength: "50000"])
        for part in 0..<5 {
            #expect(try connection.handler.writeStreamed(exchange: exchange, body: chunk, head: head) == nil)
            head = nil
            if halfClosesMidway && part == 1 { connection.closeInput() }
            #expect(connection.isOpen)
        }
        connection.handler.writeResponse(exchange: exchange, head: nil, body: nil, trailers: nil)
        let answers = try connection.responses()
        #expect(answers.count == 1)
        #expect(answers.first?.body == String(repeating: "z", count: 50_000))
        #expect(!connection.isOpen)
    }

    @Test("a malformed head gets 400 without a body, and the connection closes")
    func malformedHead() throws {
        let connection = try Connection()
        try connection.send("GET /thing HTTP/1.1\r\nNo colon here\r\n\r\n")
        #expect(connection.nextRequest() == nil)
        #expect(try connection.written() == "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
        #expect(!connection.isOpen)
    }

    @Test("a late write for an exchange already answered is ignored")
    func lateWrite() throws {
        let connection = try Connection()
        try connection.send(Connection.request() + Connection.request("GET", "/second"))
        let (_, first) = try #require(connection.nextRequest())
        connection.respond(first, body: "one")
        let (_, second) = try #require(connection.nextRequest())
        connection.respond(first, body: "stray")
        connection.respond(second, body: "two")
        #expect(try connection.responses().map(\.body) == ["one", "two"])
    }

    @Test("a client past limits.max_connections_per_client is closed at once; another client is not")
    func connectionCapPerClient() throws {
        let settings = Connection.settings(limitPerClient: 1)
        let first = try Connection(settings: settings)
        let second = try Connection(settings: settings)
        let other = try Connection(settings: settings, peer: "192.0.2.2")
        #expect(first.isOpen)
        #expect(!second.isOpen)
        #expect(other.isOpen)
        // Once its connections close (the refused one counted too, until it is gone), the
        // client is served again.
        _ = first.channel.close()
        first.loop.run()
        second.loop.run()
        let again = try Connection(settings: settings)
        #expect(again.isOpen)
    }
}
