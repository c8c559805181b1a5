/// The `aclrole` schema (PROTOCOL §12.3, D14): one object per role, primary key `aclrole_id` =
/// the role name, and a one-to-many relationship `users` to the default user schema listing the
/// members.
public enum RoleSchema {
    public static let name = "aclrole"
    public static let primaryKey = "aclrole_id"
    public static let membersField = "users"

    static func definition(userSchema: String) -> SchemaDefinition {
        SchemaDefinition(name: name, primaryKey: primaryKey, fields: [membersField: .relation(target: userSchema, toMany: true)])
    }
}
