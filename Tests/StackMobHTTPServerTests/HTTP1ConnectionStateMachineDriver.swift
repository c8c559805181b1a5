import HTTPTypes
import NIOCore
import NIOHTTP1

@testable import StackMobHTTPServer

/// Plays `HTTP1ConnectionHandler`'s part for `HTTP1ConnectionStateMachineTests`: feeds the
/// machine events, asks for what they left to do as the handler does, and keeps one timer the
/// way the handler does, on a clock the test moves.
struct HTTP1ConnectionStateMachineDriver {
    typealias Machine = HTTP1ConnectionStateMachine

    static let timeouts = Machine.Timeouts(head: .seconds(10), newConnection: .seconds(5), body: .seconds(20), idle: .seconds(60))
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    var machine = Machine(timeouts: Self.timeouts)
    var now = Self.start
    /// When the simulated timer fires.
    var timer: NIODeadline?

    /// An accepted connection.
    static func opened() -> Self {
        var driver = Self()
        _ = driver.run { $0.opened(admitted: true, now: $1) }
        return driver
    }

    /// The event's action and its follow-ups, as `summary`s, without the `none`s.
    @discardableResult
    mutating func run(_ event: (inout Machine, NIODeadline) -> Machine.Action) -> [String] {
        var actions = [event(&machine, now)]
        while true {
            let next = machine.nextAction(now: now)
            if case .none = next { break }
            actions.append(next)
        }
        if let deadline = machine.timerToArm() { timer = deadline }
        return actions.map(\.summary).filter { $0 != "none" }
    }

    @discardableResult
    mutating func receive(_ parts: HTTPServerRequestPart...) -> [String] {
        parts.flatMap { part in run { $0.partReceived(part, now: $1) } }
    }

    /// The response to the request under way, written whole: `Connection: close` on the wire or
    /// not, and what followed.
    @discardableResult
    mutating func respond(_ response: HTTPResponse = HTTPResponse(status: .ok)) -> (saysClose: Bool, actions: [String]) {
        let head = machine.responseHead(response)
        let saysClose = head.headerFields[.connection] == "close"
        if machine.responseEnding() {
            return (saysClose, run { $0.linger(now: $1) })
        }
        return (saysClose, run { machine, _ in
            machine.responseWritten()
            return .none
        })
    }

    /// Moves the clock to `time`, firing the timer on the way as often as it is due.
    mutating func advance(to time: NIODeadline) -> [String] {
        var actions: [String] = []
        while let fires = timer, fires <= time {
            now = fires
            timer = nil
            actions += run { $0.timerFired(now: $1) }
        }
        now = time
        return actions
    }

    mutating func advance(by amount: TimeAmount) -> [String] {
        advance(to: now + amount)
    }

    static func head(
        _ method: HTTPMethod = .GET, _ uri: String = "/thing", version: HTTPVersion = .http1_1, _ headers: [(String, String)] = []
    ) -> HTTPServerRequestPart {
        .head(HTTPRequestHead(version: version, method: method, uri: uri, headers: HTTPHeaders(headers)))
    }

    static func body(_ count: Int) -> HTTPServerRequestPart {
        .body(ByteBuffer(repeating: UInt8(ascii: "x"), count: count))
    }
}

extension HTTP1ConnectionStateMachine.Action {
    /// The action in a few words, for comparing lists of them.
    var summary: String {
        switch self {
        case .none: "none"
        case .dispatch(let request, let body, let exchange): "dispatch \(request.method.rawValue) \(request.path ?? "") \(body?.readableBytes ?? 0)B #\(exchange)"
        case .dispatchStreaming(let request, let body, let stream, let exchange):
            "stream \(request.method.rawValue) \(request.path ?? "") \(body?.readableBytes ?? 0)B s\(stream) #\(exchange)"
        case .dispatchFailed(let request, let error, let exchange): "fail \(request.method.rawValue) \(request.path ?? "") \(type(of: error)) #\(exchange)"
        case .yieldBody(let chunk): "yield \(chunk.readableBytes)B"
        case .finishBody(let error): error.map { "finish \(type(of: $0))" } ?? "finish"
        case .read: "read"
        case .close: "close"
        case .failBodyAndClose(let error): "failBodyAndClose \(type(of: error))"
        case .closeOnceWritten: "closeOnceWritten"
        case .writeMalformedRequest(let method): "400 answering \(method?.rawValue ?? "-")"
        case .closeOutput: "closeOutput"
        }
    }
}
