import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import StackMobCore
import Synchronization

/// One request's run: the responder in a task of its own, on the connection's event loop, within
/// `limits.request_timeout_seconds`; then its response, handed to the connection.
///
/// The task is the request's alone, so a deadline can cancel it (a database transaction in
/// progress rolls back) without touching the connection. Past the deadline the client gets 504
/// with a JSON error, rather than 503: the JS SDK retries every 503, and a write that timed out
/// must not be sent again behind the app's back. A body streamed after the response started (a
/// file) is not counted.
///
/// The deadline is an entry in `RequestDeadlines`, whose one timer checks every request's, not a
/// sleeping task: `Task.sleep` arms a libdispatch timer that outlives its cancellation, and on
/// the trivial route that cost more than the route itself.
enum HTTP1Exchange {
    static func start(
        request: Request, responder: any HTTPResponder<StackMobRequestContext>, channel: any Channel, connection: HTTP1ResponseTarget,
        settings: HTTP1ConnectionSettings, logger: Logger, executor: EventLoopTaskExecutor
    ) {
        var logger = logger
        logger[metadataKey: "hb.request.id"] = .string(settings.requestIDs.next())
        let deadline = RequestDeadline()
        let seconds = settings.requestTimeoutSeconds
        let entry = settings.deadlines.add(deadline: .now() + .seconds(Int64(seconds)), on: channel.eventLoop) { deadline.expire() }
        let task = Task(executorPreference: executor) {
            let context = StackMobRequestContext(source: .init(channel: channel, logger: logger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch is HTTPParserError {
                // As Hummingbird: 400 without a body, and the connection closes.
                settings.deadlines.remove(entry)
                connection.abandonWithMalformedRequest()
                return
            } catch {
                logger.debug("Unrecognised Error", metadata: ["error.type": "\(error)"])
                response = Response(status: .internalServerError, body: .init())
            }
            settings.deadlines.remove(entry)
            if !deadline.finish() {
                // Whatever the cancelled work answered, the client learns that it timed out.
                logger.warning(
                    "Request timed out", metadata: ["sm.method": "\(request.method.rawValue)", "sm.path": "\(request.uri.path)", "sm.limit_s": "\(seconds)"])
                response = ErrorMapping.response(for: RequestTimedOut(seconds: seconds))
                response.headers[.stackMobTimeMS] = String(settings.clock.nowMilliseconds())
            }
            response.headers[.date] = settings.date.current()
            response.headers[.server] = settings.serverName
            let writer = HTTP1ResponseWriter(connection: connection, head: response.head, length: response.body.contentLength)
            do {
                try await response.body.write(writer)
            } catch {
                logger.debug("Response body failed", metadata: ["error.type": "\(error)"])
            }
            // A body that failed, or never finished, leaves a response the client cannot frame.
            connection.abandon()
        }
        deadline.attach(task)
    }
}

/// Which came first, the response or the deadline: decided once, by whichever side gets there
/// first, so that a response finished an instant before the timer fires is never replaced.
final class RequestDeadline: Sendable {
    private enum State {
        case running(Task<Void, Never>?)
        case finished
        case expired
    }

    private let state = Mutex(State.running(nil))

    /// The request's task, cancelled at once if the deadline already passed.
    func attach(_ task: Task<Void, Never>) {
        let expired = state.withLock { state in
            guard case .running = state else { return true }
            state = .running(task)
            return false
        }
        if expired { task.cancel() }
    }

    /// The timer fired: the work is cancelled unless it had finished.
    func expire() {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard case .running(let task) = state else { return nil }
            state = .expired
            return task
        }
        task?.cancel()
    }

    /// The work returned: true when its response stands, false when the deadline passed first.
    func finish() -> Bool {
        state.withLock { state in
            guard case .running = state else { return false }
            state = .finished
            return true
        }
    }
}

/// A request that took longer than `limits.request_timeout_seconds`.
struct RequestTimedOut: Error, Sendable {
    let seconds: Int
}
