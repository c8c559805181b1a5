import HTTPTypes
import NIOCore
import NIOHTTP1
import Testing

@testable import StackMobHTTPServer

/// `HTTP1ConnectionStateMachine` without a channel: each event's actions, as the handler would
/// carry them out, in order. The handler with NIO's parser in front of it:
/// `HTTP1ConnectionHandlerTests`.
@Suite("HTTP/1.1 connection state machine")
struct HTTP1ConnectionStateMachineTests {
    typealias Driver = HTTP1ConnectionStateMachineDriver

    @Test("a request read whole is handed over whole; the connection then waits for the next")
    func oneRequest() {
        var driver = Driver.opened()
        #expect(driver.receive(Driver.head(.POST, "/thing", [("Content-Length", "3")]), Driver.body(3)) == [])
        #expect(driver.receive(.end(nil)) == ["dispatch POST /thing 3B #1"])
        #expect(driver.run { machine, _ in machine.readComplete() } == [])
        #expect(driver.respond().actions == [])
        #expect(driver.receive(Driver.head(), .end(nil)) == ["dispatch GET /thing 0B #2"])
    }

    @Test("a connection one past a cap is closed at once")
    func refused() {
        var driver = Driver()
        #expect(driver.run { $0.opened(admitted: false, now: $1) } == ["close"])
        #expect(driver.timer == nil)
    }

    @Test("pipelined requests wait their turn, and reading waits while they do")
    func pipelining() {
        var driver = Driver.opened()
        #expect(driver.receive(Driver.head(.GET, "/a"), .end(nil)) == ["dispatch GET /a 0B #1"])
        #expect(driver.receive(Driver.head(.GET, "/b"), .end(nil), Driver.head(.GET, "/c"), .end(nil)) == [])
        #expect(driver.machine.queued.count == 4)
        let readsOn = driver.machine.readRequested()
        #expect(!readsOn)
        // A late write for an earlier exchange is not this one's.
        #expect(!driver.machine.isAnswering(0))
        #expect(driver.machine.isAnswering(1))
        #expect(driver.respond().actions == ["dispatch GET /b 0B #2"])
        // The read held back goes on once the queue is empty.
        #expect(driver.respond().actions == ["dispatch GET /c 0B #3", "read"])
        #expect(driver.respond().actions == [])
        let readsAgain = driver.machine.readRequested()
        #expect(readsAgain)
    }

    struct PersistenceCase: Sendable, CustomTestStringConvertible {
        let testDescription: String
        var method = HTTPMethod.GET
        var uri = "/thing"
        var version = HTTPVersion.http1_1
        var headers: [String] = []
        /// The connection closes after the response.
        let closes: Bool
        /// The response says so (`Connection: close`).
        let saysClose: Bool

        var head: HTTPServerRequestPart {
            Driver.head(method, uri, version: version, headers.map { ($0.split(separator: ":")[0].description, String($0.split(separator: ":")[1].dropFirst())) })
        }
    }

    static let persistence: [PersistenceCase] = [
        .init(testDescription: "HTTP/1.1", closes: false, saysClose: false),
        .init(testDescription: "HTTP/1.1, Connection: close", headers: ["Connection: close"], closes: true, saysClose: false),
        .init(testDescription: "HTTP/1.0", version: .http1_0, closes: true, saysClose: false),
        .init(testDescription: "HTTP/1.0, Connection: keep-alive", version: .http1_0, headers: ["Connection: keep-alive"], closes: false, saysClose: false),
        .init(testDescription: "Upgrade", headers: ["Connection: upgrade", "Upgrade: websocket"], closes: true, saysClose: true),
        .init(testDescription: "CONNECT", method: .CONNECT, closes: true, saysClose: true),
    ]

    @Test("keep-alive, Connection: close, HTTP/1.0 and requests that leave HTTP/1.1", arguments: persistence)
    func keepAlive(_ example: PersistenceCase) {
        var driver = Driver.opened()
        #expect(driver.receive(example.head, .end(nil)).count == 1)
        let (saysClose, actions) = driver.respond()
        #expect(saysClose == example.saysClose)
        // A connection that closes shuts its write side once the response is on the wire.
        #expect(actions == (example.closes ? ["closeOutput"] : []))
    }

    @Test("a response that says Connection: close closes the connection")
    func responseSaysClose() {
        var driver = Driver.opened()
        driver.receive(Driver.head(), .end(nil))
        let (saysClose, actions) = driver.respond(HTTPResponse(status: .badRequest, headerFields: [.connection: "close"]))
        #expect(saysClose)
        #expect(actions == ["closeOutput"])
        #expect(driver.advance(by: .seconds(2)) == ["close"])
    }

    @Test("a half-close after a request: the answer is written, then the connection closes")
    func halfCloseAfterRequest() {
        var driver = Driver.opened()
        driver.receive(Driver.head(), .end(nil))
        #expect(driver.run { machine, _ in machine.halfClosed() } == [])
        // The client sends nothing more, so the read side need not linger.
        #expect(driver.respond().actions == ["closeOnceWritten"])
        #expect(driver.run { $0.linger(now: $1) } == ["close"])
    }

    @Test("a half-close while idle closes the connection")
    func halfCloseIdle() {
        var driver = Driver.opened()
        #expect(driver.run { machine, _ in machine.halfClosed() } == ["closeOnceWritten"])
        #expect(driver.run { $0.linger(now: $1) } == ["close"])
    }

    @Test("a half-close mid-body ends the body's stream; the answer is written, then the connection closes")
    func halfCloseMidBody() {
        var driver = Driver.opened()
        driver.receive(Driver.head(.POST, "/thing", [("Content-Length", "100")]), Driver.body(10))
        #expect(driver.run { machine, _ in machine.readComplete() } == ["stream POST /thing 10B s1 #1"])
        #expect(driver.machine.isStreaming(1))
        #expect(driver.run { machine, _ in machine.halfClosed() } == [])
        #expect(!driver.machine.isStreaming(1))
        #expect(driver.respond().actions == ["close"])
    }

    @Test("a body larger than what is collected whole is streamed, with back-pressure")
    func streamedBody() {
        var driver = Driver.opened()
        let size = HTTP1ConnectionStateMachine.wholeBodyLimit + 1
        #expect(driver.receive(Driver.head(.POST, "/thing", [("Content-Length", "\(size + 5)")]), Driver.body(size)) == ["stream POST /thing \(size)B s1 #1"])
        #expect(driver.receive(Driver.body(5)) == ["yield 5B"])
        driver.machine.bodyReaderFellBehind()
        let readsOn = driver.machine.readRequested()
        #expect(!readsOn)
        // A callback of an earlier stream changes nothing.
        #expect(driver.run { machine, _ in machine.bodyReaderCaughtUp(stream: 0) } == [])
        #expect(driver.run { machine, _ in machine.bodyReaderCaughtUp(stream: 1) } == ["read"])
        #expect(driver.receive(.end(nil)) == ["finish"])
        #expect(!driver.machine.isStreaming(1))
    }

    @Test("a request answered before its body was read: the rest is dropped, and the next request is served")
    func answeredBeforeBody() {
        var driver = Driver.opened()
        driver.receive(Driver.head(.POST, "/thing", [("Content-Length", "100")]), Driver.body(10))
        driver.run { machine, _ in machine.readComplete() }
        #expect(driver.respond().actions == [])
        #expect(!driver.machine.isStreaming(1))
        #expect(driver.receive(Driver.body(90), .end(nil)) == [])
        #expect(driver.receive(Driver.head(.GET, "/next"), .end(nil)) == ["dispatch GET /next 0B #2"])
    }

    @Test("a malformed head gets 400 and the connection closes; what follows changes nothing")
    func malformedHead() {
        var driver = Driver.opened()
        #expect(driver.run { machine, _ in machine.errorCaught(HTTPParserError.invalidHeaderToken) } == ["400 answering -"])
        #expect(driver.run { machine, _ in machine.errorCaught(HTTPParserError.invalidEOFState) } == [])
        #expect(driver.receive(Driver.head(), .end(nil)) == [])
        #expect(driver.run { $0.linger(now: $1) } == ["closeOutput"])
    }

    @Test("a body that breaks before its task starts reaches the route as the parser's error")
    func malformedBody() {
        var driver = Driver.opened()
        driver.receive(Driver.head(.POST, "/thing", [("Transfer-Encoding", "chunked")]))
        #expect(driver.run { machine, _ in machine.errorCaught(HTTPParserError.invalidChunkSize) } == ["fail POST /thing HTTPParserError #1"])
        // The route answered it: the connection closes after the answer.
        #expect(driver.respond().actions == ["closeOutput"])
    }

    @Test("a head swift-http-types cannot represent closes the connection without an answer")
    func unrepresentableHead() {
        var driver = Driver.opened()
        #expect(driver.receive(Driver.head(.RAW(value: "B@D"))) == ["close"])
    }

    @Test("a socket error fails the body's reader and closes the connection")
    func socketError() {
        var driver = Driver.opened()
        driver.receive(Driver.head(.POST, "/thing", [("Content-Length", "100")]), Driver.body(10))
        driver.run { machine, _ in machine.readComplete() }
        #expect(driver.run { machine, _ in machine.errorCaught(ChannelError.eof) } == ["failBodyAndClose ChannelError"])
    }

    @Test("on shutdown the requests already read are answered, then the connection closes")
    func quiesce() {
        var driver = Driver.opened()
        driver.receive(Driver.head(.GET, "/a"), .end(nil), Driver.head(.GET, "/b"), .end(nil))
        #expect(driver.run { machine, _ in machine.quiesce() } == [])
        #expect(driver.respond().actions == ["dispatch GET /b 0B #2"])
        #expect(driver.respond().actions == ["closeOnceWritten"])
    }

    @Test("the connection's task gone (inactive): nothing is read, queued or timed any more")
    func inactive() {
        var driver = Driver.opened()
        driver.receive(Driver.head(.GET, "/a"), .end(nil), Driver.head(.GET, "/b"))
        driver.machine.channelInactive()
        #expect(driver.machine.queued.isEmpty)
        #expect(driver.machine.timerToArm() == nil)
        #expect(driver.receive(.end(nil)) == [])
    }
}
