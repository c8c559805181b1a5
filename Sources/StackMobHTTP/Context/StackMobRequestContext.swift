import Hummingbird
import NIOCore
import StackMobCore

/// The per-request state: Hummingbird's core storage (logger tagged with the request id,
/// parameters), then what authentication established.
public struct StackMobRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The environment the request's `Accept` version selected; set by `AuthenticationMiddleware`.
    public var environment: AppEnvironment?
    /// Who the request acts for; set by `AuthenticationMiddleware`.
    public var caller: Caller = .anonymous
    /// The verb on the wire when `X-HTTP-Method-Override` replaced it (§2.9); set by
    /// `MethodOverrideResponder`, so that a signature over either verb verifies (D19).
    public var wireMethod: HTTPRequest.Method?

    /// The peer's IP address as the socket sees it (a proxy's, behind one). What the client's
    /// address is, `ClientOrigin` decides.
    public var remoteAddress: String? { remoteSocketAddress?.ipAddress }
    /// Formatted only when asked for: most requests never need the text.
    private let remoteSocketAddress: SocketAddress?
    /// The connection's event loop: where the request's deadline timer runs.
    let eventLoop: any EventLoop
    /// A first-generation request (`/api/<version>/<app>/…`): the environment its path names and
    /// the target as received, which its signature covers; set by `APIRouter`, which routes the
    /// request by today's spelling of its path.
    public var firstGeneration: (environment: EnvironmentKind, signedTarget: String)?
    /// The signed-in operator of an admin API request; set by `AdminAuthMiddleware`.
    public var operatorSession: OperatorSession?
    /// The listener the request came in on: an API call made on an HTML5 site's port, or an
    /// admin API write on the operator listener, must not link files to that origin.
    public var listener = ListenerRole.api
    /// What a handler or a middleware learns that the middleware outside it reads (the context
    /// is a value: what one sets on its copy does not reach them otherwise).
    let notes = RequestNotes()

    public init(source: Source) {
        coreContext = .init(source: source)
        remoteSocketAddress = source.channel.remoteAddress
        eventLoop = source.channel.eventLoop
    }

    /// The authenticated environment. Routes behind `AuthenticationMiddleware` always have one.
    func requireEnvironment() throws -> AppEnvironment {
        guard let environment else { throw AuthenticationError.missingCredentials }
        return environment
    }
}

/// What one request's handler and middleware tell the middleware outside them.
///
/// `@unchecked Sendable`: one request's middleware and handler write it and read it, one after
/// another in that request's task, so no two threads ever touch it at once.
final class RequestNotes: @unchecked Sendable {
    /// The user the request was signed as (`<schema>/<id>`), for the traffic pages
    /// (`RequestMetricsMiddleware`); set by `CallerMiddleware`.
    var signedUser: String?
    /// The bytes the answer holds besides its text until it is written: the keys of a streamed
    /// list's rest (`JSONArrayResponse`), which `BodyBudget.answering` counts.
    var answerKeeps = 0
}

/// What a listener serves, as far as a request's handling depends on it.
public enum ListenerRole: Sendable {
    /// The API port (with the push host, host-named sites and, by default, the admin API).
    case api
    /// An HTML5 site's own port (`html5.<env>.listen`).
    case site
    /// The operator listener (`admin.port`).
    case admin
}
