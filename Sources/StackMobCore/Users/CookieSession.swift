/// The legacy OAuth 1.0 cookie session of the Java SDK (PROTOCOL §8.9).
///
/// The SDK decides it is logged in when a response sets a `session_*` cookie whose value has no
/// `=` and no `:`, and logged out when the same cookie comes back with a `:` in its value. It
/// parses `Expires` itself and would drop a cookie with a future date, so none is sent.
public enum CookieSession {
    /// How long the server honours a session cookie.
    public static let lifetimeMilliseconds: Int64 = 30 * 24 * 3600 * 1000

    /// One name per environment: development and production logins on one host do not clash.
    public static func name(_ environment: EnvironmentKind) -> String {
        "session_\(environment.rawValue)"
    }

    /// `Set-Cookie` after a login: the value is 32 hex characters (no `=`, no `:`). No `Secure`:
    /// the Java SDK logs in over https but sends data requests over http.
    public static func loginHeader(_ environment: EnvironmentKind, value: String) -> String {
        "\(name(environment))=\(value); Path=/; HttpOnly"
    }

    /// `Set-Cookie` after a logout: the value contains `:`, which the SDK reads as logged out.
    public static func loggedOutHeader(_ environment: EnvironmentKind) -> String {
        "\(name(environment))={logged_out:true}; Path=/; HttpOnly"
    }

    /// The value of this environment's session cookie in a `Cookie` header, if any.
    public static func value(in cookieHeader: String?, _ environment: EnvironmentKind) -> String? {
        guard let cookieHeader else { return nil }
        let wanted = name(environment)
        for part in cookieHeader.split(separator: ";") {
            let pair = part.trimmingSpaces()
            guard let equals = pair.firstIndex(of: "=") else { continue }
            if pair[..<equals] == wanted {
                let value = String(pair[pair.index(after: equals)...])
                return value.isEmpty || value.contains(":") ? nil : value
            }
        }
        return nil
    }
}
