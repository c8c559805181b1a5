import Hummingbird
import StackMobCore

/// The push host's generation-2 REST endpoints (PROTOCOL §11.3; the Java SDK and the docs).
/// Generation 1 is in `PushController+Universal`.
struct PushController {
    let maxBodyBytes: Int

    func addRoutes(to router: some RouterMethods<StackMobRequestContext>) {
        router.post("/tokens/:type/:token", use: registerWithoutOverwrite)
        router.put("/tokens/:type/:token", use: registerOverwriting)
        router.delete("/tokens/:type/:token", use: removeToken)
        router.get("/tokens", use: tokensForUsers)
        router.post("/notifications", use: notify)
        router.get("/expired_tokens", use: expiredTokens)
        addUniversalRoutes(to: router)
    }

    static var empty: Response { JSONResponse.make(.object([:])) }

    /// `POST /tokens/<type>/<token>` `{"user": …}`: a token registered already is a 409.
    @Sendable func registerWithoutOverwrite(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        try await register(request, context: context, overwrite: false)
    }

    /// `PUT /tokens/<type>/<token>` `{"user": …}`: registers or re-links.
    @Sendable func registerOverwriting(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        try await register(request, context: context, overwrite: true)
    }

    private func register(_ request: Request, context: StackMobRequestContext, overwrite: Bool) async throws -> Response {
        let environment = try context.requireEnvironment()
        try PushAccess.requireRegistration(context, environment: environment)
        let token = try pathToken(context)
        let body = try await PushRequestBody.object(request, limit: maxBodyBytes)
        try await environment.push.register(token, user: try PushRequestBody.string(body, "user"), overwrite: overwrite)
        return Self.empty
    }

    /// `DELETE /tokens/<type>/<token>`: `{}`, also for a token that was not registered.
    @Sendable func removeToken(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try context.requireEnvironment()
        try PushAccess.requireRegistration(context, environment: environment)
        try await environment.push.remove(try pathToken(context))
        return Self.empty
    }

    /// `GET /tokens?user=u1&user=u2`: the listing array of D12.
    @Sendable func tokensForUsers(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try context.requireEnvironment()
        try PushAccess.requirePrivateKey(context)
        let users = try QueryString.parameters(request.uri.query).filter { $0.key == "user" }.map(\.value)
        let tokens = try await environment.push.tokens(forUsers: users)
        return JSONResponse.make(.array(tokens.map(\.listingJSON)))
    }

    /// `POST /notifications` `{"payload": …, "tokens"|"users": …, "fake": …}`; neither tokens
    /// nor users is a broadcast.
    @Sendable func notify(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try context.requireEnvironment()
        try PushAccess.requirePrivateKey(context)
        let body = try await PushRequestBody.object(request, limit: maxBodyBytes)
        let payload = try PushRequestBody.payload(body["payload"], "payload")
        let recipients: PushRecipients
        switch (body["tokens"], body["users"]) {
        case (let tokens?, nil): recipients = .tokens(try PushRequestBody.tokens(tokens, "tokens"))
        case (nil, let users?): recipients = .users(try PushRequestBody.strings(users, "users"))
        case (nil, nil): recipients = .everyone
        case (_?, _?): throw PushError.malformedRequest("send to tokens or to users, not both")
        }
        try await send(payload, to: recipients, fake: try PushRequestBody.bool(body, "fake") ?? false, environment: environment, context: context)
        return Self.empty
    }

    /// `GET /expired_tokens?clear=true|false`.
    @Sendable func expiredTokens(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try context.requireEnvironment()
        try PushAccess.requirePrivateKey(context)
        let clear = try QueryString.parameters(request.uri.query).last { $0.key == "clear" }?.value.lowercased() == "true"
        let tokens = try await environment.push.expiredTokens(clear: clear)
        return JSONResponse.make(.array(tokens.map(\.listingJSON)))
    }

    /// Accepts a send (its deliveries are in the outbox once this returns) and logs it.
    func send(_ payload: PushPayload, to recipients: PushRecipients, fake: Bool, environment: AppEnvironment, context: StackMobRequestContext)
        async throws
    {
        let result = try await environment.push.send(payload, to: recipients, fake: fake)
        context.logger.info(
            fake ? "Push notification validated (fake: nothing delivered)" : "Push notification accepted",
            metadata: [
                "sm.push.notification": "\(result.notificationID)", "sm.push.deliveries": "\(result.deliveries)",
                "sm.push.skipped_for_size": "\(result.skippedForSize)", "sm.push.payload_bytes": "\(payload.byteCount)",
            ])
    }

    /// The Java SDK form-encodes the last segment (the token), so `+` is a space there.
    private func pathToken(_ context: StackMobRequestContext) throws -> PushToken {
        let type = try PathSegment.decode(context.parameters.get("type") ?? "")
        let token = try PathSegment.decode(context.parameters.get("token") ?? "", plusAsSpace: true)
        return try PushToken(wireType: type, token: token)
    }
}
