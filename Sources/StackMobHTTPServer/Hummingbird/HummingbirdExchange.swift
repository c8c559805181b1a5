import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// What Hummingbird's `Application` does for each request on its `HTTP1Channel` (a request id
/// on the logger, an empty 500 for an unmapped error, `Date` and `Server`), plus the request's
/// deadline, `limits.request_timeout_seconds`, as `HTTP1Exchange` keeps it on the server's own
/// layer: past it the work is cancelled (a transaction in progress rolls back) and the client
/// gets `settings.timeoutResponse` (the server's is 504, not 503, which the JS SDK resends).
///
/// The work runs in a task of its own, preferring the connection's event loop (an unstructured
/// task does not inherit its parent's preference), because only a task of its own can be
/// cancelled without cancelling the connection. Its deadline is an entry in the listener's
/// `RequestDeadlines`, not a sleeping task (see there).
enum HummingbirdExchange {
    static func responder<Responder: HTTPResponder>(_ responder: Responder, settings: HTTP1ConnectionSettings, logger: Logger)
        -> HTTPChannelHandler.Responder where Responder.Context: RequestContext, Responder.Context.Source == ApplicationRequestContextSource
    {
        { request, writer, channel in
            var logger = logger
            logger[metadataKey: RequestIDs.metadataKey] = .string(settings.requestIDs.next())
            let context = Responder.Context(source: .init(channel: channel, logger: logger))
            var response = try await answer(request, context: context, responder: responder, settings: settings, eventLoop: channel.eventLoop)
            response.headers[.date] = settings.date.current()
            response.headers[.server] = settings.serverName
            do {
                try await writer.write(response: response.head, body: response.body)
            } catch is HTTPParserError {
                // The body being sent back broke (it streamed the request's): a parser error
                // thrown from here would make Hummingbird write a second response.
                throw ResponseAbandoned()
            }
        }
    }

    /// The responder's answer, 504 past the deadline, an empty 500 for an error nobody mapped.
    /// A parser error is thrown on: Hummingbird's channel answers it (400) and closes.
    private static func answer<Responder: HTTPResponder>(
        _ request: Request, context: Responder.Context, responder: Responder, settings: HTTP1ConnectionSettings, eventLoop: any EventLoop
    ) async throws -> Response where Responder.Context: RequestContext {
        let work = Task(executorPreference: EventLoopTaskExecutor(eventLoop)) {
            try await responder.respond(to: request, context: context)
        }
        let race = DeadlineRace()
        let seconds = settings.requestTimeoutSeconds
        let entry = settings.deadlines.add(deadline: .now() + .seconds(Int64(seconds)), on: eventLoop) {
            if race.expire() { work.cancel() }
        }
        let outcome = await withTaskCancellationHandler { await work.result } onCancel: { work.cancel() }
        settings.deadlines.remove(entry)
        guard race.finish() else {
            // Whatever the cancelled work answered, the client learns that it timed out.
            context.logger.warning(
                "Request timed out", metadata: ["sm.method": "\(request.method.rawValue)", "sm.path": "\(request.uri.path)", "sm.limit_s": "\(seconds)"])
            return settings.timeoutResponse(seconds)
        }
        do {
            return try outcome.get()
        } catch let error as HTTPParserError {
            throw error
        } catch {
            context.logger.debug("Unrecognised Error", metadata: ["error.type": "\(error)"])
            return Response(status: .internalServerError, body: .init())
        }
    }
}

/// A response whose body failed after its head was written: the connection is closed.
struct ResponseAbandoned: Error {}

/// Which came first, the response or the deadline: decided once, by whichever side gets there
/// first, so that a response finished an instant before the timer fires is never replaced.
private final class DeadlineRace: Sendable {
    private enum State {
        case running, finished, expired
    }

    private let state = Mutex(State.running)

    /// The timer fired: true when the work had not finished, which must now be cancelled.
    func expire() -> Bool {
        state.withLock { state in
            guard state == .running else { return false }
            state = .expired
            return true
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
