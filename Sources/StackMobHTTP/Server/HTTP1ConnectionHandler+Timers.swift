import Hummingbird
import NIOCore

/// The new-connection, head, body and idle timeouts, on one timer per connection.
extension HTTP1ConnectionHandler {
    /// Bytes arrived (`InboundBytesObserver`, in front of the parser).
    func bytesArrived() {
        idleSince = nil
        guard awaitingHead, headStarted == nil else { return }
        let now = NIODeadline.now()
        headStarted = now
        setTimer(for: now + settings.headTimeout)
    }

    /// A head arrived: its body has `bodyTimeout` to follow.
    func bodyArriving() {
        let now = NIODeadline.now()
        bodyStarted = now
        setTimer(for: now + settings.bodyTimeout)
    }

    func bodyArrived() {
        bodyStarted = nil
    }

    /// Makes sure the timer fires by `deadline`: a timer already set to fire sooner is kept (it
    /// sets itself again when it fires).
    func setTimer(for deadline: NIODeadline) {
        guard let context else { return }
        if let fires = timerFires, fires <= deadline { return }
        timer?.cancel()
        timerFires = deadline
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) { bound.value.timerFired() }
    }

    func cancelTimer() {
        headStarted = nil
        acceptedAwaitingFirstHead = nil
        bodyStarted = nil
        idleSince = nil
        lingerSince = nil
        timer?.cancel()
        timer = nil
        timerFires = nil
    }

    private func timerFired() {
        timer = nil
        timerFires = nil
        guard let context else { return }
        let now = NIODeadline.now()
        if let started = headStarted, started + settings.headTimeout <= now {
            // No answer can be framed for a request that has no head yet.
            close(context)
            return
        }
        if let accepted = acceptedAwaitingFirstHead, accepted + settings.newConnectionTimeout <= now {
            close(context)
            return
        }
        if let since = idleSince, since + settings.idleTimeout <= now, !responding, queued.isEmpty {
            close(context)
            return
        }
        if let since = lingerSince, since + Self.lingerTimeout <= now {
            close(context)
            return
        }
        if let started = bodyStarted, started + settings.bodyTimeout <= now {
            bodyStarted = nil
            bodyTimedOut(context: context)
        }
        let pending = [
            headStarted.map { $0 + settings.headTimeout }, acceptedAwaitingFirstHead.map { $0 + settings.newConnectionTimeout },
            bodyStarted.map { $0 + settings.bodyTimeout },
            idleSince.map { $0 + settings.idleTimeout }, lingerSince.map { $0 + Self.lingerTimeout },
        ]
        if let next = pending.compactMap({ $0 }).min() { setTimer(for: next) }
    }

    /// The body is late: its reader fails with `RequestBodyTimeout` (408) and the connection
    /// closes after the answer; a body nobody reads any more just closes the connection.
    private func bodyTimedOut(context: ChannelHandlerContext) {
        closeAfterResponse = true
        let timedOut = RequestBodyTimeout(seconds: settings.bodyTimeout.nanoseconds / 1_000_000_000)
        switch reading {
        case .body(let source, _):
            source.finish(timedOut)
            reading = .broken
        case .head(let request, _):
            reading = .broken
            dispatch(request, body: RequestBody(asyncSequence: FailedRequestBody(error: timedOut)), context: context)
        case .discarding:
            reading = .broken
            closeIfDone()
        case .idle, .complete, .broken:
            break
        }
    }

    private func close(_ context: ChannelHandlerContext) {
        reading = .broken
        context.close(promise: nil)
    }
}

/// A request body that did not arrive completely within `limits.body_timeout_seconds`.
struct RequestBodyTimeout: Error, Sendable {
    let seconds: Int64
}
