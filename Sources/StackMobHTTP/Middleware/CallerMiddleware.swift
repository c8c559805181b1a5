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
        let response = try await bodies.counting(request, context: context) { try await answer(request, context: context, next: next) }
        return try bodies.answering(response, to: request, context: context)
    }

    private nonisolated(nonsending) func answer(
        _ request: Request, context: Context, next: nonisolated(nonsending) (Request, Context) async throws -> Response
    ) async throws -> Response {
        var request = request
        let context = try await authentication.authenticated(&request, context: context)
        if let user = context.caller.sessionUser { context.signedUser.name = "\(user.schema)/\(user.id)" }
        guard context.environment != nil else { return try await next(request, context) }
        let segments = request.uri.path.split(separator: "/", omittingEmptySubsequences: true)
        if let claim = users.claim(request, context: context, segments: segments) {
            return try await users.respond(to: claim, request, context: context, next: next)
        }
        if let claim = social.claim(request, context: context, segments: segments) {
            return try await social.respond(to: claim, request, context: context)
        }
        if let claim = customCode.claim(request, context: context, segments: segments) {
            return try await customCode.respond(to: claim, request, context: context)
        }
        return try await next(request, context)
    }
}
