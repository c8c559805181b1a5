import Hummingbird

/// The one order in which a request meets the server's middleware, on every listener, outermost
/// first. A listener names the layers it needs (`Router.add(layers:)`) and they run in this order
/// whatever order it names them in: no listener can map errors outside its request log, or look
/// for a route before refusing a `%00`.
///
/// The API port runs the same layers in the same order through their parts, without a router
/// (`FrontMiddleware`, then `CallerMiddleware` for `bodyBudget` and `authentication`): there, the listener's own
/// routes (monitoring, push, HTML5 sites, the admin API) are claimed after `serverHeaders`, and
/// cross-origin headers (`CORSPolicyMiddleware`) wrap `errors`.
enum MiddlewareLayer: Int, Comparable, Sendable {
    /// Marks the operator listener's requests (`admin.port`) before anything else sees them.
    case listenerMark
    /// One line per request, with its status and time (`RequestLogMiddleware`).
    case requestLog
    /// `Date` and `Server` on every response (`ServerHeadersMiddleware`).
    case serverHeaders
    /// Every error as StackMob's JSON body (`ErrorMiddleware`).
    case errors
    /// The console's errors as a page, inside `errors` (`ConsoleErrorMiddleware`).
    case consolePages
    /// A transfer coding other than chunked refused (`TransferCodingMiddleware`).
    case transferCoding
    /// A target holding `%00` refused (`NULMiddleware`).
    case nul
    /// An unknown route as StackMob's 404 (`NotFoundMiddleware`).
    case notFound
    /// A large request body counted against the listener's budgets before anything reads it, and
    /// a large answer until the client takes it (`BodyBudget`).
    case bodyBudget
    /// Who the caller is: an app's keys and signatures, or an operator's session.
    case authentication
    /// What the listener answers itself: monitoring, the admin API and console, an HTML5 site.
    case surface

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension Router where Context == StackMobRequestContext {
    /// Adds each middleware in `MiddlewareLayer`'s order; one middleware per layer.
    func add(layers: [(MiddlewareLayer, any MiddlewareProtocol<Request, Response, Context>)]) {
        precondition(Set(layers.map(\.0.rawValue)).count == layers.count, "one middleware per layer")
        for (_, middleware) in layers.sorted(by: { $0.0 < $1.0 }) {
            add(middleware: middleware)
        }
    }
}
