import Hummingbird
import StackMobCore

/// An environment's keys, push outbox and custom-code methods over the admin API
/// (docs/operations.md, "Admin API"):
///
/// - `GET /_admin/environments/<env>/keys`: the public and private keys (audited: they are secrets);
/// - `POST /_admin/environments/<env>/keys/rotate` `{"key": "private"|"public"}`: a new key, in
///   force at once and kept in `keys.json`;
/// - `GET /_admin/environments/<env>/push`: the push outbox's deliveries by state;
/// - `GET /_admin/environments/<env>/custom_code`: the methods, their webhooks and last failures.
struct AdminEnvironmentController {
    let backend: Backend

    func addRoutes(to router: some RouterMethods<StackMobRequestContext>) {
        router.get("/_admin/environments/:env/keys", use: keys)
        router.post("/_admin/environments/:env/keys/rotate", use: rotate)
        router.get("/_admin/environments/:env/push", use: push)
        router.get("/_admin/environments/:env/custom_code", use: customCode)
    }

    @Sendable func keys(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try AdminRequest.environment(context, backend: backend)
        try await backend.operators.audit(
            try AdminRequest.operatorName(context), action: "keys.show", detail: ["environment": .string(environment.kind.rawValue)])
        return JSONResponse.make(
            ["public_key": .string(environment.keys.publicKey), "private_key": .string(environment.keys.privateKey)],
            headers: [.cacheControl: "no-store"])
    }

    @Sendable func rotate(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try AdminRequest.environment(context, backend: backend)
        let name = (try await AdminRequest.body(request)).objectValue?["key"]?.stringValue ?? "private"
        guard let which = LiveKeys.Rotated(rawValue: name) else { throw AdminError.badInput(key: "key", "must be public or private") }
        let keys = try environment.liveKeys.rotate(
            which, kind: environment.kind, settings: environment.settings, store: KeyStore(dataDirectory: backend.configuration.dataDirectory))
        try await backend.operators.audit(
            try AdminRequest.operatorName(context), action: "keys.rotate",
            detail: ["environment": .string(environment.kind.rawValue), "key": .string(which.rawValue)])
        return JSONResponse.make(
            ["public_key": .string(keys.publicKey), "private_key": .string(keys.privateKey)], headers: [.cacheControl: "no-store"])
    }

    @Sendable func push(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try AdminRequest.environment(context, backend: backend)
        let counts = try await environment.push.outboxCounts()
        return JSONResponse.make(["outbox": .object(JSONObject(counts.mapValues { JSONValue.integer(Int64($0)) }))])
    }

    @Sendable func customCode(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try AdminRequest.environment(context, backend: backend)
        var methods: [JSONValue] = []
        for method in environment.settings.customCode {
            let failures = await backend.customCodeFailures.failures(environment: environment.kind, method: method.name)
            methods.append([
                "name": .string(method.name), "url": .string(method.url),
                "last_failures": .array(failures.map { ["at": .integer($0.at), "reason": .string($0.reason)] }),
            ])
        }
        return JSONResponse.make(["methods": .array(methods)])
    }
}
