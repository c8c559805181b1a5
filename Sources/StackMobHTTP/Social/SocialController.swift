import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import StackMobCore

/// The social endpoints of user schemas (PROTOCOL §9): `/<userSchema>/facebookAccessToken` and
/// friends, plus the legacy cookie logins of §8.9.
///
/// A middleware for the reason `UserController` is one: under other schemas, and with other
/// verbs, these names stay ordinary object ids. Every create and link endpoint takes its
/// parameters from the query, a JSON body or a form body alike (D11).
struct SocialController: Sendable {
    typealias Context = StackMobRequestContext
    let gateway: any SocialGateway
    let maxBodyBytes: Int

    /// Request parameters that are not user attributes when the JS SDK merges the model into a
    /// create body.
    static let protocolParameters: Set<String> = [
        "fb_at", "tw_tk", "tw_ts", "gigya_uid", "gigya_ts", "gigya_sig", "token_type", "mac_algorithm", "username",
    ]

    /// A social action of a user schema, in its environment.
    typealias Claim = (action: SocialAction, schema: UserSchema, environment: AppEnvironment)

    /// Nil for a request that is not this middleware's. `segments` are the path's.
    func claim(_ request: Request, context: Context, segments: [Substring]) -> Claim? {
        guard let environment = context.environment, segments.count == 2, let name = try? PathSegment.decode(segments[0]),
            let schema = environment.users.userSchema(named: name), let action = SocialAction(rawValue: String(segments[1])),
            Self.methods(for: action.kind).contains(request.method)
        else { return nil }
        return (action, schema, environment)
    }

    func respond(to claim: Claim, _ request: Request, context: Context) async throws -> Response {
        try await respond(claim.action, claim.schema, request, context, claim.environment)
    }

    /// The verbs each kind of action answers to; any other verb on its path is an ordinary object
    /// request.
    static func methods(for kind: SocialAction.Kind) -> [HTTPRequest.Method] {
        switch kind {
        case .unlink: [.delete]
        case .tokenLogin, .create, .link, .post: [.get, .post]
        case .cookieLogin, .userInfo: [.get]
        }
    }

    /// The endpoints this middleware answers, for the route log (`{schema}` is a user schema).
    static var routes: [RegisteredRoute] {
        SocialAction.allCases.flatMap { action in
            methods(for: action.kind).map { RegisteredRoute(host: .api, method: $0.rawValue, path: "/{schema}/\(action.rawValue)") }
        }
    }

    private func respond(
        _ action: SocialAction, _ schema: UserSchema, _ request: Request, _ context: Context, _ environment: AppEnvironment
    ) async throws -> Response {
        let users = environment.users
        let provider = action.provider
        let body = try await RequestBodyReader.bytes(request, limit: maxBodyBytes)
        var buffered = request
        buffered.body = .init(buffer: body)
        let parameters = try await FormBody.parameters(buffered, limit: maxBodyBytes)
        let username = parameters[schema.loginField] ?? parameters["username"]
        var metadata: Logger.Metadata = ["sm.schema": "\(schema.name)", "sm.provider": "\(provider.rawValue)"]
        switch action.kind {
        case .tokenLogin(let create):
            let credentials = try SocialCredentials.from(parameters, provider: provider)
            let grant = try await users.socialLogin(
                schema, credentials, create: create, username: username, caller: context.caller, gateway: gateway)
            metadata["sm.user"] = "\(grant.user[schema.loginField]?.stringValue ?? "")"
            context.logger.info("User logged in through a provider", metadata: metadata)
            return JSONResponse.make(grant.json)
        case .cookieLogin:
            let credentials = try SocialCredentials.from(parameters, provider: provider)
            let (user, cookie) = try await users.socialCookieLogin(schema, credentials, gateway: gateway)
            context.logger.info("User logged in through a provider with a cookie session", metadata: metadata)
            var response = JSONResponse.make(.object(user))
            response.headers[.setCookie] = CookieSession.loginHeader(environment.kind, value: cookie)
            return response
        case .create:
            let credentials = try SocialCredentials.from(parameters, provider: provider)
            let user = try await users.createSocialUser(
                schema, credentials, username: username, fields: Self.attributes(body, schema), caller: context.caller, gateway: gateway)
            context.logger.info("User created through a provider", metadata: metadata)
            return JSONResponse.make(.object(user), status: .created)
        case .link:
            let credentials = try SocialCredentials.from(parameters, provider: provider)
            let user = try await users.linkSocialAccount(schema, credentials, caller: context.caller, gateway: gateway)
            context.logger.info("Provider account linked", metadata: metadata)
            return JSONResponse.make(.object(user))
        case .unlink:
            try await users.unlinkSocialAccount(schema, provider, caller: context.caller)
            context.logger.info("Provider account unlinked", metadata: metadata)
            return JSONResponse.make(.object([:]))
        case .userInfo:
            return JSONResponse.make(.object(try await users.socialUserInfo(schema, provider, caller: context.caller, gateway: gateway)))
        case .post:
            guard let message = parameters[action.messageParameter], !message.isEmpty else {
                throw SocialError.missingParameter(action.messageParameter)
            }
            let answer = try await users.socialPost(schema, provider, message: message, caller: context.caller, gateway: gateway)
            context.logger.info("Posted through a provider", metadata: metadata)
            return JSONResponse.make(answer)
        }
    }

    /// The user attributes of a JSON create body (the JS SDK merges the model's attributes):
    /// everything but the protocol's own parameters; form and query variants carry none.
    private static func attributes(_ body: ByteBuffer, _ schema: UserSchema) -> JSONObject {
        guard let object = try? JSONParser.parse(body.readableBytesView, options: .requestBody).objectValue else { return [:] }
        return object.filter { key, _ in !protocolParameters.contains(key) && key != schema.loginField }
    }
}
