import Hummingbird
import StackMobCore

/// Generation 1, the "universal" endpoints (PROTOCOL §11.2; the iOS SDK and legacy Java).
extension PushController {
    /// The paths, also reachable on the API host under `/push/` (legacy Java 0.1).
    static let universalPaths: Set<String> = [
        "register_device_token_universal", "push_broadcast_universal", "push_broadcast", "push_users_universal", "push_tokens_universal",
        "get_tokens_for_users_universal", "remove_token_universal", "remove_push_token_universal", "get_expired_tokens_universal",
    ]

    func addUniversalRoutes(to router: some RouterMethods<StackMobRequestContext>) {
        for prefix in ["", "/push"] {
            router.post(RouterPath("\(prefix)/register_device_token_universal"), use: registerUniversal)
            router.post(RouterPath("\(prefix)/push_broadcast_universal"), use: broadcastUniversal)
            router.post(RouterPath("\(prefix)/push_broadcast"), use: broadcastUniversal)
            router.post(RouterPath("\(prefix)/push_users_universal"), use: pushUsersUniversal)
            router.post(RouterPath("\(prefix)/push_tokens_universal"), use: pushTokensUniversal)
            router.get(RouterPath("\(prefix)/get_tokens_for_users_universal"), use: tokensForUsersUniversal)
            router.post(RouterPath("\(prefix)/remove_token_universal"), use: removeUniversal)
            router.post(RouterPath("\(prefix)/remove_push_token_universal"), use: removeUniversal)
            router.post(RouterPath("\(prefix)/get_expired_tokens_universal"), use: expiredTokensUniversal)
        }
    }

    /// `{"userId": …, "token": {"token": …, "type": …}, "overwrite": true|false}`; overwrite
    /// defaults to true (legacy Java 0.4 sends none).
    @Sendable func registerUniversal(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try context.requireEnvironment()
        try PushAccess.requireRegistration(context, environment: environment)
        let body = try await PushRequestBody.object(request, limit: maxBodyBytes)
        guard let tokenJSON = body["token"] else { throw PushError.malformedRequest("token is required: {\"token\": \"…\", \"type\": \"…\"}") }
        let token = try PushToken(json: tokenJSON)
        let overwrite = try PushRequestBody.bool(body, "overwrite") ?? true
        try await environment.push.register(token, user: try PushRequestBody.string(body, "userId"), overwrite: overwrite)
        return Self.empty
    }

    /// `{"kvPairs": {…}}` to every registered token.
    @Sendable func broadcastUniversal(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try context.requireEnvironment()
        try PushAccess.requirePrivateKey(context)
        let body = try await PushRequestBody.object(request, limit: maxBodyBytes)
        try await send(try PushRequestBody.payload(body["kvPairs"], "kvPairs"), to: .everyone, fake: false, environment: environment, context: context)
        return Self.empty
    }

    /// `{"kvPairs": {…}, "userIds": [...]}`.
    @Sendable func pushUsersUniversal(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try context.requireEnvironment()
        try PushAccess.requirePrivateKey(context)
        let body = try await PushRequestBody.object(request, limit: maxBodyBytes)
        let payload = try PushRequestBody.payload(body["kvPairs"], "kvPairs")
        let users = try PushRequestBody.strings(body["userIds"], "userIds")
        try await send(payload, to: .users(users), fake: false, environment: environment, context: context)
        return Self.empty
    }

    /// `{"tokens": [{"token", "type"}], "payload": {"kvPairs": {…}}}`.
    @Sendable func pushTokensUniversal(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try context.requireEnvironment()
        try PushAccess.requirePrivateKey(context)
        let body = try await PushRequestBody.object(request, limit: maxBodyBytes)
        guard let wrapper = body["payload"]?.objectValue else {
            throw PushError.malformedRequest("payload must be an object {\"kvPairs\": {…}}")
        }
        let payload = try PushRequestBody.payload(wrapper["kvPairs"], "payload.kvPairs")
        let tokens = try PushRequestBody.tokens(body["tokens"], "tokens")
        try await send(payload, to: .tokens(tokens), fake: false, environment: environment, context: context)
        return Self.empty
    }

    /// `?userIds=u1,u2` → `{"tokens": {"u1": [{"token", "type", "registered_milliseconds"}]}}`;
    /// every requested user appears, with an empty list when it has no token.
    @Sendable func tokensForUsersUniversal(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try context.requireEnvironment()
        try PushAccess.requirePrivateKey(context)
        let users = try QueryString.parameters(request.uri.query).filter { $0.key == "userIds" }
            .flatMap { $0.value.split(separator: ",", omittingEmptySubsequences: true).map(String.init) }
        var byUser: [String: [JSONValue]] = Dictionary(users.map { ($0, []) }, uniquingKeysWith: { first, _ in first })
        for registered in try await environment.push.tokens(forUsers: users) {
            guard let user = registered.user else { continue }
            byUser[user, default: []].append(
                .object([
                    "token": .string(registered.token.token), "type": .string(registered.token.type.rawValue),
                    "registered_milliseconds": .integer(registered.registeredMilliseconds),
                ]))
        }
        return JSONResponse.make(.object(["tokens": .object(JSONObject(byUser.mapValues(JSONValue.array)))]))
    }

    /// `{"token": …, "type": …}`: `{}`, also for a token that was not registered.
    @Sendable func removeUniversal(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try context.requireEnvironment()
        try PushAccess.requireRegistration(context, environment: environment)
        let body = try await PushRequestBody.object(request, limit: maxBodyBytes)
        try await environment.push.remove(try PushToken(json: .object(body)))
        return Self.empty
    }

    /// `{"clear": true|false}` → the listing array of D12.
    @Sendable func expiredTokensUniversal(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try context.requireEnvironment()
        try PushAccess.requirePrivateKey(context)
        let body = try await PushRequestBody.object(request, limit: maxBodyBytes)
        let tokens = try await environment.push.expiredTokens(clear: try PushRequestBody.bool(body, "clear") ?? false)
        return JSONResponse.make(.array(tokens.map(\.listingJSON)))
    }
}
