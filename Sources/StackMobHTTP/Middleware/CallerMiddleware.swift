import Hummingbird

/// After the routes that need no credentials: who the caller is, then the user, social and
/// custom code endpoints, which match their own paths. One concrete chain, as `FrontMiddleware`.
struct CallerMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    let authentication: AuthenticationMiddleware
    let users: UserController
    let social: SocialController
    let customCode: CustomCodeMiddleware

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await authentication.handle(request, context: context) { request, context in
            try await users.handle(request, context: context) { request, context in
                try await social.handle(request, context: context) { request, context in
                    try await customCode.handle(request, context: context, next: next)
                }
            }
        }
    }
}
