import Hummingbird
import StackMobCore

/// On the API port: every path under `/_admin` goes to the admin API (issue 15), which has its
/// own routes and authentication; the StackMob API's middleware (API keys, signatures, CORS)
/// never sees these requests, and app keys never open them. No schema can be named `_admin`
/// (schema names start with a letter).
struct AdminMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    static let prefix = "/_admin"
    let admin: RouterResponder<StackMobRequestContext>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path == Self.prefix || path.hasPrefix(Self.prefix + "/") {
            return try await admin.respond(to: request, context: context)
        }
        return try await next(request, context)
    }
}
