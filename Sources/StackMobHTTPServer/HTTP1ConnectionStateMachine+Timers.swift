import NIOCore

/// The new-connection, head, body, idle, stalled-output and linger deadlines, all served by one
/// timer.
extension HTTP1ConnectionStateMachine {
    /// Bytes arrived, before any parsing (`InboundBytesObserver`): the head timeout starts with a
    /// request's first byte, which only a handler in front of the parser sees.
    mutating func bytesArrived(now: @autoclosure () -> NIODeadline) {
        idleSince = nil
        guard awaitingHead, headStarted == nil else { return }
        headStarted = now()
    }

    /// When the timer must fire, if it must be set (again) to fire sooner than it will: a timer
    /// already set to fire sooner is kept (it sets itself again when it fires).
    mutating func timerToArm() -> NIODeadline? {
        // Asked after every event: no array, only comparisons.
        var next = headStarted.map { $0 + timeouts.head }
        next = Self.earlier(next, acceptedAwaitingFirstHead.map { $0 + timeouts.newConnection })
        next = Self.earlier(next, bodyStarted.map { $0 + timeouts.body })
        next = Self.earlier(next, idleSince.map { $0 + timeouts.idle })
        next = Self.earlier(next, outputFullSince.map { $0 + timeouts.idle })
        next = Self.earlier(next, lingerSince.map { $0 + timeouts.linger })
        guard let next, timerFires.map({ next < $0 }) ?? true else { return nil }
        timerFires = next
        return next
    }

    private static func earlier(_ one: NIODeadline?, _ other: NIODeadline?) -> NIODeadline? {
        guard let one else { return other }
        guard let other else { return one }
        return min(one, other)
    }

    /// The timer fired at `now`: what passed its deadline.
    mutating func timerFired(now: NIODeadline) -> Action {
        timerFires = nil
        if let started = headStarted, started + timeouts.head <= now {
            // No answer can be framed for a request that has no head yet.
            return closeNow()
        }
        if let accepted = acceptedAwaitingFirstHead, accepted + timeouts.newConnection <= now {
            return closeNow()
        }
        if let since = idleSince, since + timeouts.idle <= now, !responding, queued.isEmpty {
            return closeNow()
        }
        if let since = lingerSince, since + timeouts.linger <= now {
            return closeNow()
        }
        if let since = outputFullSince, since + timeouts.idle <= now {
            // The client has taken nothing for that long: what it was sent is dropped with it.
            return closeNow()
        }
        if let started = bodyStarted, started + timeouts.body <= now {
            bodyStarted = nil
            return bodyTimedOut()
        }
        return .none
    }

    /// No deadline is left to keep (the connection closed, or its handler was removed).
    mutating func clearDeadlines() {
        headStarted = nil
        acceptedAwaitingFirstHead = nil
        bodyStarted = nil
        idleSince = nil
        outputFullSince = nil
        lingerSince = nil
        timerFires = nil
    }

    /// The body is late: its reader fails with `RequestBodyTimeout` (408) and the connection
    /// closes after the answer; a body nobody reads any more just closes the connection.
    private mutating func bodyTimedOut() -> Action {
        persistence = .close
        let timedOut = RequestBodyTimeout(seconds: timeouts.body.nanoseconds / 1_000_000_000)
        switch reading {
        case .body:
            reading = .broken
            return .finishBody(error: timedOut)
        case .head(let request, _):
            reading = .broken
            return .dispatchFailed(request, error: timedOut, exchange: dispatch(request))
        case .discarding:
            reading = .broken
            followUps.insert(.closeIfDone)
            return .none
        case .idle, .complete, .broken:
            return .none
        }
    }

    /// A deadline passed that leaves nothing to answer: the connection closes, and no other
    /// deadline is kept for it.
    private mutating func closeNow() -> Action {
        reading = .broken
        clearDeadlines()
        return .close
    }
}

/// A request body that did not arrive completely within `limits.body_timeout_seconds`.
public struct RequestBodyTimeout: Error, Sendable {
    public let seconds: Int64
}
