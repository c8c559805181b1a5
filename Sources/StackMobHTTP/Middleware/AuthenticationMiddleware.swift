import Hummingbird
import StackMobCore

/// Selects the environment from the `Accept` version and establishes the caller from the
/// credentials (PROTOCOL §1.2, §2.5). `HEAD /` needs none: it is the iOS SDK's network probe.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    let backend: Backend
    let authenticator = RequestAuthenticator()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .head && request.uri.path == "/" {
            return try await next(request, context)
        }
        let version = APIVersion.parse(accept: request.headers[.accept])
        let environment = backend.environment(EnvironmentKind(apiVersion: version))
        let credentials = RequestAuthenticator.Credentials(
            apiKey: request.headers[.stackMobAPIKey], authorization: request.headers[.authorization])
        var context = context
        context.caller = try authenticator.authenticate(credentials, in: environment)
        context.environment = environment
        context.logger[metadataKey: "sm.environment"] = "\(environment.kind.rawValue)"
        return try await next(request, context)
    }
}
