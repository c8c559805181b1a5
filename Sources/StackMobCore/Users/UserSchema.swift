/// A schema whose objects are users who can log in (PROTOCOL §8.1).
public struct UserSchema: Sendable, Hashable {
    public var name: String
    /// The login field, which is also the schema's primary key.
    public var loginField: String
    /// Stored hashed, never returned.
    public var passwordField: String
    /// Where forgotPassword sends the temporary password (§8.6); nil = a field named `email`.
    public var emailField: String?

    public init(name: String = "user", loginField: String = "username", passwordField: String = "password", emailField: String? = nil) {
        self.name = name
        self.loginField = loginField
        self.passwordField = passwordField
        self.emailField = emailField
    }

    /// The schema definition a user schema starts with.
    public var definition: SchemaDefinition {
        SchemaDefinition(name: name, primaryKey: loginField, fields: [passwordField: .password])
    }
}
