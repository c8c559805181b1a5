/// What the server forwards to a custom-code webhook (PROTOCOL §10.2), as one JSON object:
///
/// ```json
/// {"method": "sendMail", "verb": "POST", "params": {"to": "a@b.c"}, "body": "<raw body>",
///  "headers": {"content-type": "…"}, "user": {"schema": "user", "id": "alice"} | null,
///  "caller": "user" | "anonymous" | "private_key", "environment": "development", "api_version": 0}
/// ```
public struct CustomCodeCall: Sendable, Equatable {
    public var method: String
    public var verb: String
    /// Query parameters, decoded, in order; a repeated name keeps its last value.
    public var parameters: [(name: String, value: String)]
    /// The raw request body as text (iOS sends an arbitrary string, §10.1).
    public var body: String
    public var headers: [String: String]
    public var caller: Caller
    public var environment: EnvironmentKind
    public var apiVersion: Int

    public init(
        method: String, verb: String, parameters: [(name: String, value: String)], body: String, headers: [String: String], caller: Caller,
        environment: EnvironmentKind, apiVersion: Int
    ) {
        self.method = method
        self.verb = verb
        self.parameters = parameters
        self.body = body
        self.headers = headers
        self.caller = caller
        self.environment = environment
        self.apiVersion = apiVersion
    }

    /// Request headers a method may care about. Never `Authorization` or cookies: the webhook
    /// gets the verified user instead of the credentials.
    public static func forwards(header name: String) -> Bool {
        let lower = name.lowercased()
        return ["content-type", "accept", "accept-language", "user-agent", "x-stackmob-api-key", "x-forwarded-for"].contains(lower)
            || (lower.hasPrefix("x-stackmob-") && !lower.hasPrefix("x-stackmob-api-key-"))
    }

    public var json: JSONValue {
        var params: JSONObject = [:]
        for (name, value) in parameters { params[name] = .string(value) }
        let user: JSONValue
        let callerName: String
        switch caller {
        case .user(let schema, let id):
            user = .object(["schema": .string(schema), "id": .string(id)])
            callerName = "user"
        case .anonymous:
            user = .null
            callerName = "anonymous"
        case .privateKey:
            user = .null
            callerName = "private_key"
        case .privateKeySession(let schema, let id):
            // A private-key request carrying a legacy cookie login (§8.9) acts for that user.
            user = .object(["schema": .string(schema), "id": .string(id)])
            callerName = "private_key"
        }
        return .object([
            "method": .string(method), "verb": .string(verb), "params": .object(params), "body": .string(body),
            "headers": .object(JSONObject(headers.mapValues(JSONValue.string))), "user": user, "caller": .string(callerName),
            "environment": .string(environment.rawValue), "api_version": .integer(Int64(apiVersion)),
        ])
    }

    public static func == (lhs: CustomCodeCall, rhs: CustomCodeCall) -> Bool {
        lhs.json == rhs.json
    }
}

/// Custom-code failures (PROTOCOL §10.3, §10.4); messages are safe to show.
public enum CustomCodeError: Error, Sendable, Equatable {
    /// The webhook did not answer in time: 504.
    case timedOut(method: String, seconds: Int)
    /// The webhook could not be reached: 503 with `Retry-After`, which every SDK retries.
    case unreachable(method: String)

    public var message: String {
        switch self {
        case .timedOut(let method, let seconds): "Custom code method '\(method)' did not answer within \(seconds) seconds"
        case .unreachable(let method): "Custom code method '\(method)' is unavailable, try again later"
        }
    }

    /// Seconds a client should wait before retrying an unreachable method.
    public static let retryAfterSeconds = 5
}
