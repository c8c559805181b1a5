import Hummingbird
import StackMobCore
import StackMobHTTPServer

/// `X-HTTP-Method-Override` (PROTOCOL §2.9): a GET may become DELETE or HEAD, a POST may become
/// PUT, nothing else. It must act before routing, which picks the route by method, so it wraps
/// the router's responder rather than being a router middleware.
struct MethodOverrideResponder<Next: HTTPResponder>: HTTPResponder where Next.Context == StackMobRequestContext {
    typealias Context = StackMobRequestContext
    let next: Next
    let clock: any ServerClock

    func respond(to request: Request, context: Context) async throws -> Response {
        try await Self.overriding(request, context: context, clock: clock) { try await next.respond(to: $0, context: $1) }
    }

    /// `request` passed on to `forward` with its method overridden, or refused.
    nonisolated(nonsending) static func overriding(
        _ request: Request, context: Context, clock: any ServerClock,
        forward: nonisolated(nonsending) (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let override = request.headers[.httpMethodOverride] else {
            return try await forward(request, context)
        }
        let target = HTTPRequest.Method(override.uppercased())
        switch (request.method, target) {
        case (.get, .delete?), (.get, .head?), (.post, .put?):
            var head = request.head
            head.method = target!
            var context = context
            context.wireMethod = request.method
            return try await forward(Request(head: head, body: request.body), context)
        case (let method, let target) where target == method:
            return try await forward(request, context)
        default:
            let error = RequestError.methodOverrideNotAllowed(from: request.method.rawValue, to: override)
            var response = ErrorMapping.response(for: error)
            response.headers[.stackMobTimeMS] = String(clock.nowMilliseconds())
            return response
        }
    }
}

/// Over the API's router, answered on the request's executor (`LocalResponder`).
extension MethodOverrideResponder: LocalResponder where Next: LocalResponder {
    nonisolated(nonsending) func answer(_ request: Request, context: Context) async throws -> Response {
        try await Self.overriding(request, context: context, clock: clock) { try await next.answer($0, context: $1) }
    }
}
