import Foundation
import HTTPTypes
import Hummingbird
import StackMobCore

/// The HTML5 listener of one environment: the page's own origin. The JS SDK in its default
/// relative-path mode (`useRelativePathForAjax`) sends its API calls here, so a call is handed to
/// the API's own responder, in process, with its `Host` untouched: the MAC signature, made over
/// the page's host and port, verifies as it would on the API port. Everything else is the site,
/// but for stored files, redirected to the API origin, and the admin API, which is not here.
struct HTML5Responder<API: HTTPResponder, Site: HTTPResponder>: HTTPResponder
where API.Context == StackMobRequestContext, Site.Context == StackMobRequestContext {
    typealias Context = StackMobRequestContext
    let api: API
    let site: Site
    let files: StoredFileOrigin

    func respond(to request: Request, context: Context) async throws -> Response {
        var context = context
        context.listener = .site
        // A stored file is never served on the site's origin: uploaded bytes next to the app's
        // pages could read what the pages keep. Its URL on the API origin (or files_base_url).
        if request.isStoredFileURL, request.method == .get || request.method == .head,
            let location = files.relocated(request, context: context)
        {
            return Response(status: .movedPermanently, headers: [.location: location, .cacheControl: "no-store"])
        }
        // The operator surface is never on a site's origin either, whatever `Accept` says
        // (`AdminMiddleware.prefix` is the site's own path there).
        if request.isStackMobAPICall && !request.isOperatorSurface {
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

    /// A path of the admin API or console. Every API request asks (`FrontMiddleware`).
    var isOperatorSurface: Bool {
        uri.path.isPath(inArea: AdminMiddleware.prefix)
    }

    /// A binary field's URL (`/_files/…`, PROTOCOL §7); reserved on a site.
    var isStoredFileURL: Bool {
        uri.path.isPath(under: FilesMiddleware.pathPrefix)
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

    /// Whether the request's `Host` names a site, API call or not.
    func isSiteHost(_ request: Request) -> Bool {
        !sites.isEmpty && sites.contains { $0.settings.matches(host: request.head.authority) }
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
