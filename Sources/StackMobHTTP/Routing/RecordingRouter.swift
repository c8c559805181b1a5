import HTTPTypes
import Hummingbird

/// A router that notes each route in a `RouteLog` as it hands it to the router it wraps
/// (Hummingbird's, or the API's `APIRouterBuilder`); the controllers register through it, so the
/// record cannot miss a route the server answers.
struct RecordingRouter<Base> {
    let router: Base
    let log: RouteLog
    let host: RegisteredRoute.Host
}

/// Over Hummingbird's router: the admin, console and push routes.
extension RecordingRouter: RouterMethods where Base: RouterMethods<StackMobRequestContext> {
    typealias Context = StackMobRequestContext

    @discardableResult func on<Responder: HTTPResponder>(
        _ path: RouterPath, method: HTTPRequest.Method, responder: Responder
    ) -> Self where Responder.Context == Context {
        log.record(RegisteredRoute(host: host, method: method.rawValue, path: path.description))
        router.on(path, method: method, responder: responder)
        return self
    }

    @discardableResult func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        _ = router.add(middleware: middleware)
        return self
    }
}

/// Over the API's router: the API's routes.
extension RecordingRouter where Base == APIRouterBuilder {
    /// `handler` answers `method` on `path` (`APIRouterBuilder.route`), noted in the log.
    func route(_ method: HTTPRequest.Method, _ path: RouterPath, _ handler: @escaping APIHandler) {
        log.record(RegisteredRoute(host: host, method: method.rawValue, path: path.description))
        router.route(method, path, handler)
    }
}
