import HTTPTypes
import NIOCore
import NIOHTTP1

/// A request's parts and the parser's errors, as NIO's parser hands them over.
extension HTTP1ConnectionStateMachine {
    /// A part from the parser: taken now, or queued behind the request being answered.
    mutating func partReceived(_ part: HTTPServerRequestPart, now: @autoclosure () -> NIODeadline) -> Action {
        switch part {
        case .head:
            headStarted = nil
            acceptedAwaitingFirstHead = nil
            awaitingHead = false
        case .body:
            break
        case .end:
            awaitingHead = true
        }
        if mustQueue {
            queued.append(.part(part))
            return .none
        }
        return receive(part, now: now())
    }

    /// The parser's error, or the connection's: taken now, or queued behind the request being
    /// answered, since it belongs to the request after it.
    mutating func errorCaught(_ error: any Error) -> Action {
        if mustQueue {
            queued.append(.error(error))
            return .none
        }
        return failed(error)
    }

    /// A head read without all of its body: its task starts now and reads the rest as it comes.
    mutating func readComplete() -> Action {
        if case .head = reading { return startStreaming() }
        return .none
    }

    /// A request is answered while the next one was already read: the next waits its turn.
    var mustQueue: Bool {
        guard queued.isEmpty else { return true }
        if case .complete = reading { return responding }
        return false
    }

    mutating func receive(_ part: HTTPServerRequestPart, now: NIODeadline) -> Action {
        switch (reading, part) {
        case (.idle, .head(let head)):
            idleSince = nil
            let request: HTTPRequest
            do {
                request = try HTTPRequest.plainHTTP(head)
            } catch {
                // A head swift-http-types cannot represent (an invalid method): there is no
                // request to answer.
                reading = .broken
                return .close
            }
            // NIO's parser stops parsing after a request that left HTTP/1.1.
            if request.method == .connect || request.headerFields[.upgrade] != nil { persistence = .close }
            if !head.isKeepAlive { persistence = max(persistence, .closeQuietly) }
            reading = .head(request, nil)
            bodyStarted = now
            return .none
        case (.head(let request, var body), .body(var chunk)):
            // Out of `reading` while it grows, so that the buffer is not copied.
            reading = .broken
            if body == nil {
                body = chunk
            } else {
                body!.writeBuffer(&chunk)
            }
            reading = .head(request, body)
            if body!.readableBytes > Self.wholeBodyLimit { return startStreaming() }
            return .none
        case (.head(let request, let body), .end):
            bodyStarted = nil
            reading = .complete
            return .dispatch(request, body: body, exchange: dispatch(request))
        case (.body, .body(let chunk)):
            return .yieldBody(chunk)
        case (.body, .end):
            bodyStarted = nil
            // A finished stream asks for nothing more: a pipelined request's reads must not wait
            // for it.
            bodyFull = false
            reading = .complete
            return .finishBody(error: nil)
        case (.discarding, .end):
            bodyStarted = nil
            reading = responding ? .complete : .idle
            if !responding { becameIdle() }
            return .none
        case (.discarding, _), (.broken, _):
            return .none
        case (.idle, .body), (.idle, .end), (.head, .head), (.body, .head), (.complete, _):
            // NIO's parser gives a head, body parts and an end, in that order, and a request read
            // to its end waits in `queued` while the one before it is answered.
            assertionFailure("HTTP part \(part) while \(reading)")
            reading = .broken
            return .close
        }
    }

    /// Hands the request read so far to its task, with a stream for the rest of its body.
    mutating func startStreaming() -> Action {
        guard case .head(let request, let body) = reading else { return .none }
        streams &+= 1
        bodyFull = false
        reading = .body(stream: streams)
        return .dispatchStreaming(request, body: body, stream: streams, exchange: dispatch(request))
    }

    /// The request under way is handed to the connection's task: its number.
    mutating func dispatch(_ request: HTTPRequest) -> UInt64 {
        responding = true
        respondingTo = request.method
        idleSince = nil
        exchanges &+= 1
        return exchanges
    }

    /// The parser's error, or the connection's: the request it broke is answered if it can be.
    mutating func failed(_ error: any Error) -> Action {
        // Once the connection is given up, the parser's complaints about what still arrives
        // (`dataReceivedInErrorState`) change nothing.
        if case .broken = reading { return .none }
        guard error is HTTPParserError else {
            // The socket failed (reset by the peer): nothing more can be read or written.
            reading = .broken
            return .failBodyAndClose(error)
        }
        switch reading {
        case .idle:
            // A head that cannot be parsed gets 400, and the connection closes: what follows it
            // cannot be framed.
            closeAfterWrite()
            return .writeMalformedRequest(answering: nil)
        case .head(let request, _):
            // Its body broke before its task started: the route finds the error reading the body.
            reading = .broken
            return .dispatchFailed(request, error: error, exchange: dispatch(request))
        case .body:
            reading = .broken
            return .finishBody(error: error)
        case .discarding:
            reading = .broken
            followUps.insert(.closeIfDone)
            return .none
        case .complete:
            reading = .broken
            return .none
        case .broken:
            return .none
        }
    }
}
