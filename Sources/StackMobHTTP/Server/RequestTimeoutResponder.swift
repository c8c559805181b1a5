import Hummingbird
import NIOCore
import StackMobCore
import Synchronization

/// Bounds the time the server spends producing one response (`limits.request_timeout_seconds`):
/// past it, the request's work is cancelled (a database transaction in progress rolls back) and
/// the client gets `504` with a JSON error. 504 rather than 503: the JS SDK retries every 503,
/// and a write that timed out must not be sent again behind the app's back.
///
/// A responder around the whole chain, not a router middleware, because the work must run in a
/// task of its own that can be cancelled without cancelling the connection, and only a
/// `Sendable` responder can be called from one. A body streamed after the response started (a
/// file) is not counted.
///
/// The deadline is an entry in `RequestDeadlines`, whose one timer checks every request's, not a
/// sleeping task: `Task.sleep` arms a libdispatch timer that outlives its cancellation, and on
/// the trivial route that cost more than the route itself.
struct RequestTimeoutResponder<Next: HTTPResponder>: HTTPResponder where Next.Context == StackMobRequestContext {
    typealias Context = StackMobRequestContext
    let next: Next
    let seconds: Int
    let clock: any ServerClock
    let deadlines: RequestDeadlines

    init(next: Next, seconds: Int, clock: any ServerClock, deadlines: RequestDeadlines = RequestDeadlines()) {
        self.next = next
        self.seconds = seconds
        self.clock = clock
        self.deadlines = deadlines
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        let next = self.next
        // On the connection's event loop, as the connection's own task (`EventLoopBoundChannel`):
        // an unstructured task does not inherit its parent's executor preference.
        let work = Task(executorPreference: EventLoopTaskExecutor(context.eventLoop)) {
            try await next.respond(to: request, context: context)
        }
        let race = DeadlineRace()
        let deadline = deadlines.add(deadline: .now() + .seconds(Int64(seconds)), on: context.eventLoop) {
            if race.expire() { work.cancel() }
        }
        let outcome = await withTaskCancellationHandler { await work.result } onCancel: { work.cancel() }
        deadlines.remove(deadline)
        if race.finish() {
            return try outcome.get()
        }
        // Whatever the cancelled work answered, the client learns that it timed out.
        context.logger.warning(
            "Request timed out", metadata: ["sm.method": "\(request.method.rawValue)", "sm.path": "\(request.uri.path)", "sm.limit_s": "\(seconds)"])
        var response = ErrorMapping.response(for: RequestTimedOut(seconds: seconds))
        response.headers[.stackMobTimeMS] = String(clock.nowMilliseconds())
        return response
    }
}

/// Which came first, the response or the deadline: decided once, by whichever side gets there
/// first, so that a response finished an instant before the timer fires is never replaced.
private final class DeadlineRace: Sendable {
    private static let running = 0, finished = 1, expired = 2
    private let state = Atomic(running)

    /// The timer fired: true when the work had not finished, which must now be cancelled.
    func expire() -> Bool {
        state.compareExchange(expected: Self.running, desired: Self.expired, ordering: .acquiringAndReleasing).exchanged
    }

    /// The work returned: true when its response stands, false when the deadline passed first.
    func finish() -> Bool {
        state.compareExchange(expected: Self.running, desired: Self.finished, ordering: .acquiringAndReleasing).exchanged
    }
}

/// A request that took longer than `limits.request_timeout_seconds`.
struct RequestTimedOut: Error, Sendable {
    let seconds: Int
}
