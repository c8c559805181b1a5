import HTTPTypes
import NIOCore

/// Responses written, and the work an event leaves for later (`nextAction(now:)`).
extension HTTP1ConnectionStateMachine {
    /// What `nextAction(now:)` still has to do, in this order.
    struct FollowUps: OptionSet {
        let rawValue: UInt8
        /// Take the pipelined requests in turn, until one is under way.
        static let drain = FollowUps(rawValue: 1 << 0)
        /// A head taken from the queue without all of its body: no read completes for it, so
        /// its task starts now.
        static let streamHead = FollowUps(rawValue: 1 << 1)
        /// No request under way: the idle timeout starts.
        static let markIdle = FollowUps(rawValue: 1 << 2)
        static let closeIfDone = FollowUps(rawValue: 1 << 3)
        static let resumeReading = FollowUps(rawValue: 1 << 4)
    }

    /// The response under way answers `exchange` (a late call for an earlier one is ignored).
    func isAnswering(_ exchange: UInt64) -> Bool {
        responding && exchange == exchanges
    }

    /// The head to write for `response`: `Connection: close` when the server closes after it; a
    /// response that says so itself closes the connection too.
    mutating func responseHead(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        if response.headerFields[.connection]?.lowercased() == "close" {
            persistence = .close
        } else if persistence == .close {
            response.headerFields[.connection] = "close"
        }
        return response
    }

    /// The response's end is about to be written: true when the connection closes once it is
    /// on the wire (the handler writes it and calls `linger(now:)` when it is); false when the
    /// connection stays (the handler writes it, then calls `responseWritten()`).
    mutating func responseEnding() -> Bool {
        guard persistence != .keepAlive || isBroken else { return false }
        responding = false
        closeAfterWrite()
        return true
    }

    /// The response is written: the connection is ready for the next request, once this one's
    /// body has been read to its end.
    mutating func responseWritten() {
        responding = false
        switch reading {
        case .complete:
            reading = .idle
        case .head, .body:
            // Answered before its body was read: the rest of it is dropped as it arrives.
            bodyFull = false
            reading = .discarding
        case .idle, .discarding, .broken:
            break
        }
        if case .idle = reading { becameIdle() }
        followUps.insert(.resumeReading)
    }

    /// The request's task ended without finishing its response (its body failed midway): the
    /// connection cannot carry another response, so it closes.
    mutating func abandonResponse(exchange: UInt64) -> Action {
        guard isAnswering(exchange) else { return .none }
        responding = false
        reading = .broken
        return .close
    }

    /// The responder threw the parser's error (a body that broke): answered as a head the parser
    /// refused.
    mutating func abandonWithMalformedRequest(exchange: UInt64) -> Action {
        guard isAnswering(exchange) else { return .none }
        responding = false
        closeAfterWrite()
        return .writeMalformedRequest(answering: respondingTo)
    }

    /// What was written before a close is on the wire: the write side is shut first, so that the
    /// client reads the response and then the end of the stream; the read side once the client
    /// closes too, or after `Timeouts.linger`, dropping what it still sends (the rest of a body
    /// nobody read). Closing both at once while the client still sends makes the kernel reset
    /// the connection, and the client may lose the response.
    mutating func linger(now: NIODeadline) -> Action {
        guard !inputClosed else { return .close }
        lingerSince = now
        followUps.insert(.resumeReading)
        return .closeOutput
    }

    /// The connection closes once what is written is on the wire: nothing more is read into a
    /// request, nor held back.
    mutating func closeAfterWrite() {
        reading = .broken
        queued.removeAll()
        bodyFull = false
    }

    /// No request under way: the pipelined requests are taken in turn, then the connection waits
    /// for the next one (or closes if the client said it is done).
    mutating func becameIdle() {
        followUps.formUnion([.drain, .streamHead, .markIdle, .closeIfDone, .resumeReading])
    }

    /// The next thing an earlier event left to do, `.none` once there is nothing.
    mutating func nextAction(now: @autoclosure () -> NIODeadline) -> Action {
        while !followUps.isEmpty {
            if followUps.contains(.drain) {
                if !queued.isEmpty && !mustWait {
                    let action =
                        switch queued.removeFirst() {
                        case .part(let part): receive(part, now: now())
                        case .error(let error): failed(error)
                        }
                    if case .none = action { continue }
                    return action
                }
                followUps.remove(.drain)
            } else if followUps.contains(.streamHead) {
                followUps.remove(.streamHead)
                if queued.isEmpty, case .head = reading { return startStreaming() }
            } else if followUps.contains(.markIdle) {
                followUps.remove(.markIdle)
                if case .idle = reading, !responding { idleSince = now() }
            } else if followUps.contains(.closeIfDone) {
                followUps.remove(.closeIfDone)
                if let close = closeIfDone() { return close }
            } else {
                followUps.remove(.resumeReading)
                if readHeld && !holdsReads {
                    readHeld = false
                    return .read
                }
            }
        }
        return .none
    }

    /// A request read to its end is being answered, or nothing more can be read; or the next
    /// request would start while the client has not taken the answers before it (`outputFull`).
    private var mustWait: Bool {
        switch reading {
        case .complete: responding
        case .broken: true
        case .idle: outputFull
        case .head, .body, .discarding: false
        }
    }

    /// Closes the connection if no request is under way or waiting and none is expected.
    private mutating func closeIfDone() -> Action? {
        guard !responding, queued.isEmpty else { return nil }
        switch reading {
        case .broken:
            closeAfterWrite()
            return .closeOnceWritten
        case .idle, .discarding:
            guard inputClosed || quiescing || persistence != .keepAlive else { return nil }
            closeAfterWrite()
            return .closeOnceWritten
        case .head, .body, .complete:
            return nil
        }
    }
}
