import Hummingbird
import StackMobCore

/// `X-StackMob-Time-MS` on every response (PROTOCOL D33): iOS Core Data computes its clock skew
/// from it. `Date` and `Server` are added as the head is written (`HTTP1ResponseEncoder.Stamp`).
struct ServerHeadersMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    let clock: any ServerClock

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        stamp(&response)
        return response
    }

    func stamp(_ response: inout Response) {
        response.headers[.stackMobTimeMS] = String(clock.nowMilliseconds())
    }
}
