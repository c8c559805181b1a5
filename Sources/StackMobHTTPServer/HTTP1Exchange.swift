import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// A connection's requests, answered one after another by the connection's task, on its event
/// loop, each within `limits.request_timeout_seconds`.
///
/// One task per connection rather than per request: a task's memory for its async frames comes in
/// slabs, which a new task allocated again for every request, and creating and ending a task cost
/// as much again (docs/benchmarks.md, "Figures behind design choices").
///
/// A deadline cancels the connection's task (a database transaction in progress rolls back).
/// Past it the client gets `settings.timeoutResponse` (StackMob's is 504, not 503: see
/// `HTTP1ConnectionSettings.init(_:clock:connections:)` in StackMobHTTP), and a new task takes
/// the connection's next requests: a cancelled task stays cancelled. A body streamed after
/// the response started (a file) is not counted. The deadline is an entry in `RequestDeadlines`, whose one
/// timer checks every request's: `Task.sleep` arms a libdispatch timer that outlives its
/// cancellation, and on the trivial route that cost more than the route itself.
enum HTTP1Exchange {
    /// Answers requests until the connection closes (true), or until a deadline cancelled the
    /// task (false).
    nonisolated(nonsending) static func serve<Context: InitializableFromSource<ApplicationRequestContextSource>>(
        connection: NIOLoopBound<HTTP1ConnectionHandler>, responder: any LocalResponder<Context>, channel: any Channel,
        settings: HTTP1ConnectionSettings, logger: Logger, serving: ServingTask
    ) async -> Bool {
        while let (request, exchange) = await connection.value.nextRequest() {
            let target = HTTP1ResponseTarget(handler: connection, exchange: exchange)
            guard await answer(request, target: target, responder: responder, channel: channel, settings: settings, logger: logger, serving: serving)
            else { return false }
        }
        return true
    }

    /// Answers one request; false when its deadline cancelled the connection's task.
    nonisolated(nonsending) private static func answer<Context: InitializableFromSource<ApplicationRequestContextSource>>(
        _ request: Request, target: HTTP1ResponseTarget, responder: any LocalResponder<Context>, channel: any Channel,
        settings: HTTP1ConnectionSettings, logger: Logger, serving: ServingTask
    ) async -> Bool {
        var logger = logger
        logger[metadataKey: RequestIDs.metadataKey] = .string(settings.requestIDs.next())
        let deadline = RequestDeadline(serving: serving)
        let seconds = settings.requestTimeoutSeconds
        let entry = settings.deadlines.add(deadline: .now() + .seconds(Int64(seconds)), on: channel.eventLoop) { deadline.expire() }
        let context = Context(source: .init(channel: channel, logger: logger))
        var response: Response
        do {
            response = try await responder.answer(request, context: context)
        } catch is HTTPParserError {
            // As Hummingbird: 400 without a body, and the connection closes.
            settings.deadlines.remove(entry)
            target.abandonWithMalformedRequest()
            return deadline.finish()
        } catch {
            logger.debug("Unrecognised Error", metadata: ["error.type": "\(error)"])
            response = Response(status: .internalServerError, body: .init())
        }
        settings.deadlines.remove(entry)
        let inTime = deadline.finish()
        if !inTime {
            // Whatever the cancelled work answered, the client learns that it timed out.
            logger.warning(
                "Request timed out", metadata: ["sm.method": "\(request.method.rawValue)", "sm.path": "\(request.uri.path)", "sm.limit_s": "\(seconds)"])
            response = settings.timeoutResponse(seconds)
        }
        // `Date` and `Server` are added as the head is written (`HTTP1ResponseEncoder.Stamp`).
        let writer = HTTP1ResponseWriter(connection: target, head: response.head, length: response.body.contentLength)
        do {
            try await response.body.write(writer)
        } catch {
            logger.debug("Response body failed", metadata: ["error.type": "\(error)"])
        }
        // A body that failed, or never finished, leaves a response the client cannot frame.
        target.abandon()
        return inTime
    }
}

/// The connection's task of the moment, for a request's deadline to cancel.
final class ServingTask: Sendable {
    private let task = Mutex<Task<Bool, Never>?>(nil)

    func set(_ task: Task<Bool, Never>) {
        self.task.withLock { $0 = task }
    }

    func cancel() {
        task.withLock { $0 }?.cancel()
    }
}

/// Which came first, the response or the deadline: decided once, by whichever side gets there
/// first, so that a response finished an instant before the timer fires is never replaced, and a
/// deadline never cancels the connection's task once its request is answered.
final class RequestDeadline: Sendable {
    private enum State {
        case running, finished, expired
    }

    private let state = Mutex(State.running)
    private let serving: ServingTask

    init(serving: ServingTask) {
        self.serving = serving
    }

    /// The timer fired: the connection's task is cancelled unless the request was answered.
    func expire() {
        // Cancelled under the lock: `finish` cannot pass in between, so the task is never
        // cancelled while it answers the connection's next request.
        state.withLock { state in
            guard state == .running else { return }
            state = .expired
            serving.cancel()
        }
    }

    /// The work returned: true when its response stands, false when the deadline passed first.
    func finish() -> Bool {
        state.withLock { state in
            guard state == .running else { return false }
            state = .finished
            return true
        }
    }
}
