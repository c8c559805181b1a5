import Hummingbird
import StackMobCore

/// On the API port: every path under `/_admin` goes to the admin API (docs/operations.md, "Admin
/// API"), which has its own routes and authentication; the StackMob API's middleware (API keys,
/// signatures, CORS) never sees these requests, and app keys never open them. No schema can be
/// named `_admin` (schema names start with a letter). Paths under `/_admin/console` go to the web
/// console (docs/operations.md, "Web console"), whose pages are themselves clients of the admin
/// API.
struct AdminMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    static let prefix = "/_admin"
    let admin: RouterResponder<StackMobRequestContext>
    let console: RouterResponder<StackMobRequestContext>

    /// `bodies`: the console's forms are counted as the admin API's bodies are.
    init(admin: RouterResponder<StackMobRequestContext>, bodies: BodyBudget, routeLog: RouteLog = RouteLog()) {
        self.admin = admin
        self.console = buildConsoleRouter(admin: admin, bodies: BodyBudgetMiddleware(budget: bodies), routeLog: routeLog)
            .buildResponder()
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let responder = responder(for: request) else { return try await next(request, context) }
        return try await responder.respond(to: request, context: context)
    }

    /// The console's or the admin API's router, for a path under theirs.
    func responder(for request: Request) -> RouterResponder<StackMobRequestContext>? {
        let path = request.uri.path
        guard path.isPath(inArea: Self.prefix) else { return nil }
        return path.isPath(inArea: ConsoleController.prefix) ? console : admin
    }
}
