/// What a successful login or refresh hands the client (PROTOCOL §8.2). The only response that
/// ever carries tokens or the MAC key.
public struct TokenGrant: Sendable {
    public var accessToken: String
    public var macKey: String
    public var refreshToken: String
    public var expiresIn: Int
    /// The user without the password field; the login field is a string (the Java SDK needs it).
    public var user: JSONObject

    /// The body, `expires_in` a JSON number and `mac_algorithm` always `hmac-sha-1` (D9).
    public var json: JSONValue {
        .object([
            "access_token": .string(accessToken),
            "mac_key": .string(macKey),
            "mac_algorithm": .string("hmac-sha-1"),
            "token_type": .string("mac"),
            "expires_in": .integer(Int64(expiresIn)),
            "refresh_token": .string(refreshToken),
            "stackmob": .object(["user": .object(user)]),
        ])
    }
}
