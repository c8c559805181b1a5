import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StackMobCore

/// The web console (docs/operations.md, "Web console"): server-rendered pages under
/// `/_admin/console`, on the admin API's listener and prefix. Every page and form turns into admin
/// API requests made through `AdminClient` with the browser's own session cookie, so the console
/// has no authentication, storage or audit of its own: what an operator may do here is exactly what
/// the admin API lets the same session do.
struct ConsoleController: Sendable {
    static let prefix = AdminMiddleware.prefix + "/console"
    /// A pre-session cookie for the sign-in form's CSRF token (double submit): the admin session
    /// and its token exist only after sign-in.
    static let signInCookie = "sm_console_signin"
    let client: AdminClient

    func addRoutes(to router: some RouterMethods<StackMobRequestContext>) {
        let p = Self.prefix
        router.get(RouterPath(p), use: { _, _ in Self.redirect("\(p)/development/overview") })
        router.get(RouterPath(p + "/assets/console.css"), use: { _, _ in Self.asset(ConsoleAssets.css, type: "text/css; charset=utf-8") })
        router.get(RouterPath(p + "/assets/console.js"), use: { _, _ in Self.asset(ConsoleAssets.javascript, type: "text/javascript; charset=utf-8") })
        router.get(RouterPath(p + "/sign-in"), use: signInPage)
        router.post(RouterPath(p + "/sign-in"), use: signIn)
        router.post(RouterPath(p + "/sign-out"), use: signOut)
        router.get(RouterPath(p + "/:env"), use: { _, context in
            let kind = context.parameters.get("env").flatMap(EnvironmentKind.init(rawValue:)) ?? .development
            return Self.redirect("\(p)/\(kind.rawValue)/overview")
        })
        router.get(RouterPath(p + "/:env/overview"), use: overview)
        router.get(RouterPath(p + "/:env/traffic"), use: traffic)
        router.get(RouterPath(p + "/:env/requests"), use: requests)
        router.get(RouterPath(p + "/:env/backups"), use: backups)
        router.post(RouterPath(p + "/:env/backups"), use: createBackup)
        router.post(RouterPath(p + "/:env/backups/download"), use: downloadBackup)
        router.get(RouterPath(p + "/:env/schemas"), use: schemas)
        router.post(RouterPath(p + "/:env/schemas"), use: addSchema)
        router.get(RouterPath(p + "/:env/schemas/:schema"), use: schema)
        router.post(RouterPath(p + "/:env/schemas/:schema/fields"), use: addField)
        router.post(RouterPath(p + "/:env/schemas/:schema/indexes"), use: addIndex)
        router.post(RouterPath(p + "/:env/schemas/:schema/permissions"), use: setPermissions)
        router.get(RouterPath(p + "/:env/data"), use: data)
        router.get(RouterPath(p + "/:env/data/:schema/new"), use: newObject)
        router.post(RouterPath(p + "/:env/data/:schema"), use: createObject)
        router.get(RouterPath(p + "/:env/data/:schema/:id"), use: object)
        router.post(RouterPath(p + "/:env/data/:schema/:id"), use: updateObject)
        router.post(RouterPath(p + "/:env/data/:schema/:id/delete"), use: deleteObject)
        router.get(RouterPath(p + "/:env/users"), use: users)
        router.post(RouterPath(p + "/:env/users/:schema/:id/:action"), use: userAction)
        router.get(RouterPath(p + "/:env/push"), use: push)
        router.post(RouterPath(p + "/:env/push/send"), use: sendPush)
        router.get(RouterPath(p + "/:env/custom-code"), use: customCode)
        router.get(RouterPath(p + "/:env/deploy"), use: deployPlan)
        router.post(RouterPath(p + "/:env/deploy"), use: deploy)
        router.get(RouterPath(p + "/:env/mail"), use: mail)
    }

    // MARK: Sign-in

    @Sendable func signInPage(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let token = SessionSecrets.generateToken()
        var response = ConsolePages.shared.response("signin", ["title": "Sign in", "signinCSRF": token], session: nil)
        response.headers[.setCookie] = "\(Self.signInCookie)=\(token); Path=\(Self.prefix); HttpOnly; SameSite=Strict; Max-Age=3600"
        return response
    }

    @Sendable func signIn(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let form = try await ConsoleForm.read(request)
        guard let sent = form["csrf"], let expected = Self.cookie(Self.signInCookie, in: request), !sent.isEmpty,
            SessionSecrets.hash(sent) == SessionSecrets.hash(expected)
        else { throw ConsoleError.forbidden("The sign-in form expired or did not come from this console. Open the sign-in page again.") }
        let name = form["name"] ?? ""
        let reply = try await client.send(
            .post, AdminSessionController.path, body: ["name": .string(name), "password": .string(form["password"] ?? "")],
            from: request, context: context)
        guard reply.isSuccess, let cookie = reply.headers[.setCookie] else {
            let message = reply.status == .unauthorized ? "Wrong name or password." : reply.error
            var response = ConsolePages.shared.response(
                "signin", ["title": "Sign in", "signinCSRF": expected, "name": name, "error": message], session: nil,
                status: reply.status == .unauthorized ? .unauthorized : reply.status)
            response.headers[.retryAfter] = reply.headers[.retryAfter]
            return response
        }
        var response = Self.redirect("\(Self.prefix)/development/overview")
        response.headers.append(HTTPField(name: .setCookie, value: cookie))
        response.headers.append(HTTPField(name: .setCookie, value: "\(Self.signInCookie)=; Path=\(Self.prefix); HttpOnly; SameSite=Strict; Max-Age=0"))
        return response
    }

    @Sendable func signOut(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let (session, _) = try await posted(request, context, environment: "development")
        let reply = try await client.send(.delete, AdminSessionController.path, csrf: session.csrf, from: request, context: context)
        var response = Self.redirect("\(Self.prefix)/sign-in")
        if let cookie = reply.headers[.setCookie] { response.headers[.setCookie] = cookie }
        return response
    }

    // MARK: Shared by the pages

    /// The operator's session as the admin API sees it, or a redirect to sign-in.
    func signedIn(_ request: Request, _ context: StackMobRequestContext, environment: String? = nil) async throws -> ConsoleSession {
        let env = environment ?? context.parameters.get("env") ?? ""
        guard EnvironmentKind(rawValue: env) != nil else { throw ConsoleError.redirect("\(Self.prefix)/development/overview") }
        let reply = try await client.send(.get, AdminSessionController.path, from: request, context: context)
        guard reply.isSuccess, let name = reply.object["operator"]?.stringValue, let csrf = reply.object["csrf_token"]?.stringValue else {
            throw ConsoleError.redirect("\(Self.prefix)/sign-in")
        }
        return ConsoleSession(operatorName: name, csrf: csrf, environment: env)
    }

    /// A POSTed form after checking its CSRF token against the session's. The admin API checks
    /// the same token again on the write it is forwarded with.
    func posted(_ request: Request, _ context: StackMobRequestContext, environment: String? = nil) async throws -> (ConsoleSession, ConsoleForm) {
        let session = try await signedIn(request, context, environment: environment)
        let form = try await ConsoleForm.read(request)
        guard let sent = form["csrf"], SessionSecrets.hash(sent) == SessionSecrets.hash(session.csrf) else {
            throw ConsoleError.forbidden("This form did not carry the session's CSRF token. Reload the page and try again.")
        }
        return (session, form)
    }

    /// `/_admin/environments/<env>` followed by `rest`.
    func adminPath(_ session: ConsoleSession, _ rest: String) -> String {
        "\(AdminMiddleware.prefix)/environments/\(session.environment)\(rest)"
    }

    func pagePath(_ session: ConsoleSession, _ rest: String) -> String {
        "\(Self.prefix)/\(session.environment)\(rest)"
    }

    /// A redirect after a write (post/redirect/get), with a message for the next page.
    static func redirect(_ location: String, notice: String? = nil, error: String? = nil) -> Response {
        var target = location
        if let notice { target += (target.contains("?") ? "&" : "?") + "notice=" + ConsoleForm.encode(notice) }
        if let error { target += (target.contains("?") ? "&" : "?") + "error=" + ConsoleForm.encode(error) }
        return Response(status: .seeOther, headers: [.location: target, .cacheControl: "no-store"])
    }

    /// The `notice` and `error` a redirect carried, for the page's banner (escaped like all values).
    static func banners(_ request: Request) -> [String: Any] {
        let query = ConsoleForm.query(request)
        var banners: [String: Any] = [:]
        if let notice = query.trimmed("notice") { banners["notice"] = notice }
        if let error = query.trimmed("error") { banners["error"] = error }
        return banners
    }

    static func cookie(_ name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingSpaces().split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == name { return String(parts[1]) }
            }
        }
        return nil
    }

    private static func asset(_ bytes: [UInt8], type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "max-age=300", HTTPField.Name("X-Content-Type-Options")!: "nosniff"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// The console's routes, outside the admin API's authentication middleware (the sign-in page
/// and the assets need none; every other page asks the admin API who is signed in).
func buildConsoleRouter(
    admin: RouterResponder<StackMobRequestContext>, bodies: BodyBudgetMiddleware, routeLog: RouteLog = RouteLog()
) -> Router<StackMobRequestContext> {
    let router = Router(context: StackMobRequestContext.self)
    let routes = RecordingRouter(router: router, log: routeLog, host: .api)
    router.add(layers: [(.errors, ErrorMiddleware()), (.consolePages, ConsoleErrorMiddleware()), (.bodyBudget, bodies)])
    ConsoleController(client: AdminClient(admin: admin)).addRoutes(to: routes)
    return router
}
