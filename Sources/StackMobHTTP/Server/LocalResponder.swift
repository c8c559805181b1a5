import Hummingbird

/// A responder whose answer runs on the executor the request arrives on (the connection's event
/// loop, `HTTP1Connection`): the connection's task calls it without the executor switches an
/// `HTTPResponder`'s `respond` makes on entry and on return (docs/benchmarks.md).
protocol LocalResponder: Sendable {
    nonisolated(nonsending) func answer(_ request: Request, context: StackMobRequestContext) async throws -> Response
}

/// Any other responder, answering as it always does.
struct RespondingResponder<Responder: HTTPResponder>: LocalResponder where Responder.Context == StackMobRequestContext {
    let responder: Responder

    nonisolated(nonsending) func answer(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        try await responder.respond(to: request, context: context)
    }
}

extension APIRouter: LocalResponder {}
