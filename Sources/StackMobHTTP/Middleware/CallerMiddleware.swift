import Hummingbird

/// After the routes that need no credentials: who the caller is (`AuthenticationMiddleware`),
/// then the user, social and custom code endpoints (`UserController`, `SocialController`,
/// `CustomCodeMiddleware`), which match their own paths, in that order. Called through their
/// parts, as in `FrontMiddleware`, with the path split once for all three, and itself called by
/// `APIRouter`.
struct CallerMiddleware {
    typealias Context = StackMobRequestContext
    /// A large body is counted before anything reads it, authentication included (an OAuth 1.0
    /// signature covers the body's hash), and a large answer until the client takes it.
    let bodies: BodyBudget
    let authentication: AuthenticationMiddleware
    let users: UserController
    let social: SocialController
    let customCode: CustomCodeMiddleware

    nonisolated(nonsending) func respond(
        to request: Request, context: Context, next: nonisolated(nonsending) (Request, Context) async throws -> Response
    ) async throws -> Response {
        let answered = try await bodies.counting(request, context: context) { try await answer(request, context: context, next: next) }
        return try bodies.answering(answered.response, to: request, context: context, refusable: answered.refusable)
    }

    /// The response, and whether a large answer to a `GET` may still be refused for the body
    /// budgets once it is made: not when the request may have changed something, as the user,
    /// social and custom code endpoints may whatever their method (a login over `GET` makes a
    /// session; custom code does what its author wrote), for the SDK would send it again.
    private nonisolated(nonsending) func answer(
        _ request: Request, context: Context, next: nonisolated(nonsending) (Request, Context) async throws -> Response
    ) async throws -> (response: Response, refusable: Bool) {
        var request = request
        let context = try await authentication.authenticated(&request, context: context)
        if let user = context.caller.sessionUser { context.notes.signedUser = "\(user.schema)/\(user.id)" }
        guard context.environment != nil else { return (try await next(request, context), true) }
        let segments = request.uri.path.split(separator: "/", omittingEmptySubsequences: true)
        if let claim = users.claim(request, context: context, segments: segments) {
            return (try await users.respond(to: claim, request, context: context, next: next), false)
        }
        if let claim = social.claim(request, context: context, segments: segments) {
            return (try await social.respond(to: claim, request, context: context), false)
        }
        if let claim = customCode.claim(request, context: context, segments: segments) {
            return (try await customCode.respond(to: claim, request, context: context), false)
        }
        return (try await next(request, context), true)
    }
}
