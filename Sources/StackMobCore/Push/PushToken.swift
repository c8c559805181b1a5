/// A device token of a given type (PROTOCOL §11.1), validated.
public struct PushToken: Sendable, Hashable {
    public let type: PushTokenType
    public let token: String

    /// Validates a token as received. iOS tokens must be exactly 64 hex characters (the iOS SDK
    /// relies on bad tokens being refused) and are kept lower-case so that one device cannot be
    /// registered twice in two spellings; Android tokens are opaque non-empty strings.
    public init(type: PushTokenType, token: String) throws(PushError) {
        switch type {
        case .ios:
            guard token.utf8.count == 64, token.utf8.allSatisfy({ HexDigit.value($0) != nil }) else {
                throw .invalidToken("an iOS device token must be exactly 64 hexadecimal characters")
            }
            self.token = token.lowercased()
        case .android, .androidgcm:
            guard !token.isEmpty, token.utf8.count <= 4096 else {
                throw .invalidToken("an Android registration id must be a non-empty string of at most 4096 bytes")
            }
            self.token = token
        }
        self.type = type
    }

    /// From wire strings: the type in any case, then the token.
    public init(wireType: String, token: String) throws(PushError) {
        try self.init(type: PushTokenType(wire: wireType), token: token)
    }

    /// `{"type": …, "token": …}` as in request bodies (§11.1).
    public init(json: JSONValue) throws(PushError) {
        guard let object = json.objectValue, let type = object["type"]?.stringValue, let token = object["token"]?.stringValue else {
            throw .malformedRequest("a token must be an object {\"type\": \"<type>\", \"token\": \"<token>\"}")
        }
        try self.init(wireType: type, token: token)
    }
}

/// A token in the registry, with its user link and registration time.
public struct RegisteredToken: Sendable, Equatable {
    public let token: PushToken
    /// Any string (it need not exist in a user schema); nil when registered without a user.
    public let user: String?
    public let registeredMilliseconds: Int64

    public init(token: PushToken, user: String?, registeredMilliseconds: Int64) {
        self.token = token
        self.user = user
        self.registeredMilliseconds = registeredMilliseconds
    }

    /// The listing element of D12: `{"type", "token", "user", "registered_milliseconds"}`.
    public var listingJSON: JSONValue {
        var object: JSONObject = [
            "type": .string(token.type.rawValue), "token": .string(token.token), "registered_milliseconds": .integer(registeredMilliseconds),
        ]
        if let user { object["user"] = .string(user) }
        return .object(object)
    }
}
