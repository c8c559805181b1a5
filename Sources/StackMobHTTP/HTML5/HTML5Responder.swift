import Foundation
import HTTPTypes
import Hummingbird
import StackMobCore

/// The HTML5 listener of one environment: the page's own origin. The JS SDK in its default
/// relative-path mode (`useRelativePathForAjax`) sends its API calls here, so a call is handed to
/// the API's own responder, in process, with its `Host` untouched: the MAC signature, made over
/// the page's host and port, verifies as it would on the API port. Everything else is the site.
struct HTML5Responder<API: HTTPResponder, Site: HTTPResponder>: HTTPResponder
where API.Context == StackMobRequestContext, Site.Context == StackMobRequestContext {
    typealias Context = StackMobRequestContext
    let api: API
    let site: Site

    func respond(to request: Request, context: Context) async throws -> Response {
        if request.isStackMobAPICall || request.isStoredFileURL {
            return try await api.respond(to: request, context: context)
        }
        return try await site.respond(to: request, context: context)
    }

}

extension Request {
    /// Marked by the JS SDK: `X-StackMob-Proxy-Plain: stackmob-api` (OAuth 2.0 mode) or
    /// `X-StackMob-Proxy: stackmob-api` (OAuth 1.0 mode); or the StackMob media type in `Accept`,
    /// which every SDK sends and no browser sends for a page or an asset.
    var isStackMobAPICall: Bool {
        for name in [HTTPField.Name.stackMobProxyPlain, .stackMobProxy] {
            if headers[values: name].contains(where: { $0.trimmingSpaces().lowercased() == "stackmob-api" }) {
                return true
            }
        }
        return headers[values: .accept].contains { $0.lowercased().contains("application/vnd.stackmob+json") }
    }

    /// A binary field's URL (`/_files/…`, PROTOCOL §7). The API builds it from the `Host` the
    /// call came with, so a call made on the site's origin links files there: the site hands them
    /// to the API too, and `/_files/` is reserved on a site.
    var isStoredFileURL: Bool {
        uri.path.hasPrefix(FileURLBase.pathPrefix + "/")
    }
}

/// On the API port: a page request whose `Host` is listed in `html5.<env>.hosts` is served by
/// that environment's site; API calls (`isStackMobAPICall`) go on to the API.
struct HTML5HostMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    let sites: [(settings: HTML5SiteSettings, responder: RouterResponder<StackMobRequestContext>)]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let responder = responder(for: request) else { return try await next(request, context) }
        return try await responder.respond(to: request, context: context)
    }

    /// The site a page request's `Host` names.
    func responder(for request: Request) -> RouterResponder<StackMobRequestContext>? {
        guard !sites.isEmpty, !request.isStackMobAPICall, !request.isStoredFileURL else { return nil }
        return sites.first(where: { $0.settings.matches(host: request.head.authority) })?.responder
    }
}

extension HTTPField.Name {
    static let stackMobProxyPlain = Self("X-StackMob-Proxy-Plain")!
    static let stackMobProxy = Self("X-StackMob-Proxy")!
}
