import Hummingbird

/// A responder whose answer runs on the executor the request arrives on (the connection's event
/// loop, `HTTP1Connection`): the connection's task calls it without the executor switches an
/// `HTTPResponder`'s `respond` makes on entry and on return (docs/benchmarks.md).
public protocol LocalResponder<Context>: Sendable {
    /// The request context, made by the connection's task for each request, as Hummingbird's
    /// `Application` makes it.
    associatedtype Context: InitializableFromSource<ApplicationRequestContextSource>

    nonisolated(nonsending) func answer(_ request: Request, context: Context) async throws -> Response
}

/// Any other responder, answering as it always does.
public struct RespondingResponder<Responder: HTTPResponder>: LocalResponder
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    let responder: Responder

    public init(responder: Responder) {
        self.responder = responder
    }

    nonisolated(nonsending) public func answer(_ request: Request, context: Responder.Context) async throws -> Response {
        try await responder.respond(to: request, context: context)
    }
}
