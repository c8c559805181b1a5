import HTTPTypes
import NIOCore
import NIOHTTP1

/// The life of one HTTP/1.1 connection, as a value: what `HTTP1ConnectionHandler` learns (a
/// request's parts, the parser's errors, a half-close, a response written, a timer fired) goes
/// in as events, and what the connection must do about it comes out as an `Action`, which the
/// handler carries out. It does no I/O and reads no clock, so every path can be tested without a
/// channel (`HTTP1ConnectionStateMachineTests`).
///
/// Requests are answered one at a time, in order. A request read while another is answered
/// (pipelining) waits in `queued`, and the connection stops reading until it is taken.
///
/// Some events leave work for later, in the order the handler then asks for it
/// (`nextAction(now:)`): the pipelined requests taken in turn once the connection is free, a
/// close once nothing is under way, a read held back while the reader was behind.
struct HTTP1ConnectionStateMachine {
    /// Where the request being read stands.
    enum Reading {
        /// Waiting for the next request's head.
        case idle
        /// A head, and what arrived of its body, not yet handed to a task: a request whose body
        /// arrives with its head is handed over whole.
        case head(HTTPRequest, ByteBuffer?)
        /// Handed to its task; the rest of the body goes to the task through the stream numbered
        /// `stream` (the handler holds its source).
        case body(stream: UInt64)
        /// Read to its end.
        case complete
        /// Answered, or its reader gone, before its body ended: the rest is read and dropped.
        case discarding
        /// The connection cannot be read any further (its framing broke, or it closed): it is
        /// closed once the request under way is answered.
        case broken
    }

    /// A pipelined request's part, or the parser's error, in the order they came.
    enum Inbound {
        case part(HTTPServerRequestPart)
        case error(any Error)
    }

    /// Whether the connection outlives the response under way. Only ever raised: a connection
    /// that is to close stays so.
    enum Persistence: Comparable {
        case keepAlive
        /// The client asked (`Connection: close`, HTTP/1.0): the response need not say so.
        case closeQuietly
        /// The server closes, and the response says so (`Connection: close`).
        case close
    }

    /// What the handler does for an event.
    enum Action {
        case none
        /// Hands the request, with all of its body, to the connection's task.
        case dispatch(HTTPRequest, body: ByteBuffer?, exchange: UInt64)
        /// Hands the request to the connection's task with a new body stream numbered `stream`,
        /// which starts with `body`.
        case dispatchStreaming(HTTPRequest, body: ByteBuffer?, stream: UInt64, exchange: UInt64)
        /// Hands the request to the connection's task with a body that fails with `error`.
        case dispatchFailed(HTTPRequest, error: any Error, exchange: UInt64)
        /// Passes a chunk to the body stream; the handler reports `.stopProducing`
        /// (`bodyReaderFellBehind()`).
        case yieldBody(ByteBuffer)
        /// Ends the body stream, with `error` if it did not end well.
        case finishBody(error: (any Error)?)
        /// Passes the read the channel asked for on.
        case read
        /// Closes the connection at once.
        case close
        /// Ends the body stream with `error`, then closes the connection at once (the socket
        /// failed).
        case failBodyAndClose(any Error)
        /// Closes the connection once what was written is on the wire (`closeOutput` or `close`
        /// follows from `linger(now:)`).
        case closeOnceWritten
        /// Writes 400 without a body, with `Connection: close`, then closes as `closeOnceWritten`.
        case writeMalformedRequest(answering: HTTPRequest.Method?)
        /// Shuts the write side and keeps reading (and dropping) what the client still sends.
        case closeOutput
    }

    /// The connection's deadlines, from `HTTP1ConnectionSettings`.
    struct Timeouts {
        var head: TimeAmount
        var newConnection: TimeAmount
        var body: TimeAmount
        var idle: TimeAmount
        /// How long a connection closing after its response keeps reading what the client still
        /// sends.
        var linger: TimeAmount = .seconds(2)
    }

    /// The largest body collected whole before its request's task starts; a larger one is
    /// streamed to the task.
    static var wholeBodyLimit: Int { 64 * 1024 }

    let timeouts: Timeouts
    // The state below is changed only by the machine's own methods (here and in its extensions,
    // which Swift's `private(set)` would not let in); the handler reads it.
    var reading = Reading.idle
    /// A request's task runs, or its response is being written.
    var responding = false
    /// The method of the request being answered: a response to `HEAD` or `CONNECT` has no body.
    var respondingTo: HTTPRequest.Method?
    /// The number of the latest request handed to the connection's task: what a response written
    /// is matched to.
    var exchanges: UInt64 = 0
    var queued = CircularBuffer<Inbound>()
    /// A `read` the channel asked for and the handler held back.
    var readHeld = false
    /// The body's reader is `highWatermark` chunks behind.
    var bodyFull = false
    /// The channel holds more unsent response bytes than its high water mark: the client reads
    /// slower than it asks. No more is read, and no request already read starts, until it has
    /// taken them; else a client that pipelines requests and never reads makes the server keep
    /// every answer in memory.
    var outputFull = false
    /// The number of the latest body stream: a stream's callbacks may arrive after the next one
    /// began.
    var streams: UInt64 = 0
    var persistence = Persistence.keepAlive
    /// The client will send nothing more (a half-closed connection).
    var inputClosed = false
    /// The server is shutting down: the connection closes once no request is under way or read.
    var quiescing = false
    /// Work left by an event for `nextAction(now:)`.
    var followUps = FollowUps()

    // Deadlines (HTTP1ConnectionStateMachine+Timers.swift).
    /// When the connection was accepted, until its first request head arrived.
    var acceptedAwaitingFirstHead: NIODeadline?
    /// The next bytes start a request head.
    var awaitingHead = true
    /// When the head under way began to arrive.
    var headStarted: NIODeadline?
    /// When the body under way began (its head arrived).
    var bodyStarted: NIODeadline?
    /// Since when the connection has had no request.
    var idleSince: NIODeadline?
    /// Since when the channel has held more unsent bytes than its high water mark
    /// (`outputFull`). A client that takes no bytes for the idle timeout is as idle as one that
    /// sends none: its connection closes, and the answer it holds (a batch of a streamed answer,
    /// a response being written) is let go.
    var outputFullSince: NIODeadline?
    /// Since when the connection, its last response written, waits for the client to close.
    var lingerSince: NIODeadline?
    /// When the handler's one timer fires: it is moved only when a deadline comes sooner, so a
    /// request costs a few clock reads instead of a timer set and cancelled.
    var timerFires: NIODeadline?

    init(timeouts: Timeouts) {
        self.timeouts = timeouts
    }

    // MARK: The connection

    /// The connection was accepted: refused when it is one past a cap, else it waits for its
    /// first request.
    mutating func opened(admitted: Bool, now: NIODeadline) -> Action {
        guard admitted else {
            reading = .broken
            return .close
        }
        acceptedAwaitingFirstHead = now
        becameIdle()
        return .none
    }

    /// The client half-closed: it will send nothing more.
    mutating func halfClosed() -> Action {
        inputClosed = true
        switch reading {
        case .body, .discarding:
            // A body cut short.
            reading = .broken
        case .idle, .head, .complete, .broken:
            break
        }
        followUps.insert(.closeIfDone)
        return .none
    }

    /// The server is shutting down: the requests already read (pipelined ones too) are answered,
    /// then the connection closes.
    mutating func quiesce() -> Action {
        quiescing = true
        followUps.insert(.closeIfDone)
        return .none
    }

    /// The connection closed: nothing more is read, queued or timed.
    mutating func channelInactive() {
        clearDeadlines()
        reading = .broken
        queued.removeAll()
    }

    // MARK: Back-pressure

    /// The channel asks to read: true when the read goes on now, false when it is held back until
    /// the pipelined request waiting is taken or the body's reader catches up.
    mutating func readRequested() -> Bool {
        if holdsReads {
            readHeld = true
            return false
        }
        return true
    }

    var holdsReads: Bool { !queued.isEmpty || bodyFull || outputFull }

    /// The channel's writability changed (`outputFull`): once it takes bytes again, what was read
    /// is answered and reading goes on.
    mutating func writabilityChanged(writable: Bool, now: @autoclosure () -> NIODeadline) {
        outputFull = !writable
        if writable {
            outputFullSince = nil
            followUps.formUnion([.drain, .resumeReading])
        } else if outputFullSince == nil, !isBroken {
            outputFullSince = now()
        }
    }

    /// The body stream said `.stopProducing`.
    mutating func bodyReaderFellBehind() {
        bodyFull = true
    }

    mutating func bodyReaderCaughtUp(stream: UInt64) -> Action {
        guard stream == streams else { return .none }
        bodyFull = false
        followUps.insert(.resumeReading)
        return .none
    }

    mutating func bodyReaderGone(stream: UInt64) -> Action {
        guard stream == streams else { return .none }
        bodyFull = false
        if case .body = reading { reading = .discarding }
        followUps.insert(.resumeReading)
        return .none
    }

    /// Whether the body stream numbered `stream` is still being fed.
    func isStreaming(_ stream: UInt64) -> Bool {
        if case .body(stream) = reading { return true }
        return false
    }

    var isBroken: Bool {
        if case .broken = reading { return true }
        return false
    }
}
