import Hummingbird
import StackMobCore

/// Selects the environment from the `Accept` version and establishes the caller from the
/// credentials (PROTOCOL §1.2, §2.5). `HEAD /` needs none: it is the iOS SDK's network probe.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    let backend: Backend
    let clock: any ServerClock
    let authenticator = RequestAuthenticator()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        let context = try await authenticated(&request, context: context)
        return try await next(request, context)
    }

    /// The context with the request's environment and caller. A request whose OAuth 1.0 header
    /// signs its body (`oauth_body_hash`) has its body read here, and handed on in `request`.
    nonisolated(nonsending) func authenticated(_ request: inout Request, context: Context) async throws -> Context {
        if request.method == .head && request.uri.path == "/" {
            return context
        }
        // A first-generation path names its environment; today's requests say it in `Accept`.
        let kind = context.firstGeneration?.environment ?? EnvironmentKind(apiVersion: APIVersion.parse(accept: request.headers.value(of: .accept)))
        let environment = backend.environment(kind)
        let authorization = request.headers.value(of: .authorization)
        var bodySHA1: [UInt8]?
        // Only for the app's own consumer key: anyone else's request is refused without its body
        // being waited for, read, or held against the listener's budget (`BodyBudget`).
        if let authorization, authorization.hasPrefix("OAuth "), OAuth1Authorization.parse(authorization)?.consumerKey == environment.keys.publicKey {
            bodySHA1 = try await SignedBody.sha1(of: &request, authorization: authorization, limit: backend.configuration.maxBodyBytes)
        }
        let credentials = RequestCredentials(
            apiKey: request.headers.value(of: .stackMobAPIKey), authorization: authorization,
            method: request.method.rawValue, target: context.firstGeneration?.signedTarget ?? request.uri.string, host: request.head.authority,
            forwardedProto: request.headers.value(of: .xForwardedProto), forwardedPort: request.headers.value(of: .xForwardedPort),
            cookie: request.headers.value(of: .cookie), wireMethod: context.wireMethod?.rawValue, bodySHA1: bodySHA1)
        var context = context
        context.environment = environment
        if credentials.authorization?.hasPrefix("OAuth ") == true {
            // A wrong OAuth 1.0 signature may be a guess at the private key: limited per address.
            let attempts = SecretAttempts(backend: backend, clock: clock)
            context.caller = try await attempts.attempt(request, context) { try await authenticator.authenticate(credentials, in: environment) }
        } else {
            context.caller = try await authenticator.authenticate(credentials, in: environment)
        }
        context.logger[metadataKey: "sm.environment"] = "\(environment.kind.rawValue)"
        // Schema changes made through another instance on the same database are in the registry
        // before this request uses it (a no-op on SQLite, served by this process alone).
        try await environment.datastore.refreshSchemas()
        return context
    }
}
