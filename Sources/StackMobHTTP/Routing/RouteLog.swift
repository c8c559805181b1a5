import Foundation
import HTTPTypes

/// One route as registered: where it is served, its method, and its path in OpenAPI's template
/// form (`/{schema}/{id}`, which is how Hummingbird's `RouterPath` writes itself).
public struct RegisteredRoute: Hashable, Sendable, CustomStringConvertible {
    /// The push host's routes answer only on the push listener or for a `push.` host; everything
    /// else answers on the API listener.
    public enum Host: String, Sendable { case api, push }

    public let host: Host
    public let method: String
    public let path: String

    public init(host: Host, method: String, path: String) {
        self.host = host
        self.method = method
        self.path = path
    }

    public var description: String { "\(host.rawValue) \(method) \(path)" }
}

/// What the route builders registered. Hummingbird's router keeps its routes in a trie that it
/// does not list, so the builders write down each route as they add it (`RecordingRouter`);
/// the OpenAPI test compares the document with this record, not with a second hand-kept list.
///
/// `@unchecked Sendable`: the only state is the array, and every access holds the lock.
public final class RouteLog: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [RegisteredRoute] = []

    public init() {}

    public var routes: [RegisteredRoute] {
        lock.withLock { recorded }
    }

    func record(_ route: RegisteredRoute) {
        lock.withLock { recorded.append(route) }
    }

    /// The endpoints a middleware answers by itself (user actions, monitoring, files): each
    /// middleware lists them from the same table it dispatches on.
    func record(_ routes: [RegisteredRoute]) {
        lock.withLock { recorded.append(contentsOf: routes) }
    }
}
