/// Everything the datastore refuses, with messages safe to show a client.
///
/// The HTTP layer maps each case to its status and StackMob's exact body (PROTOCOL §14).
public enum DatastoreError: Error, Sendable, Equatable {
    case invalidSchemaName(String)
    case invalidFieldName(String)
    case reservedSchemaName(String)
    /// A create naming a schema that does not exist where schemas are not created on demand
    /// (production).
    case unknownSchema(String)
    /// Any other request naming neither a schema nor a custom-code method (§10.4): 404.
    case unknownName(String)
    /// A field that does not exist where fields are not created on demand (production).
    case unknownField(schema: String, field: String)
    /// GET or PUT of a missing object.
    case objectNotFound
    /// DELETE of a missing object: StackMob used a different text here.
    case objectNotFoundForDelete
    case duplicateKey(schema: String, id: String)
    case primaryKeyChange
    /// A create whose value does not fit the field's type.
    case incompatibleType(field: String)
    /// An update whose value does not fit the field's type.
    case invalidType(field: String)
    case subObjectWithoutRelation(field: String)
    case missingPrimaryKey(field: String)
    case invalidPrimaryKey(field: String)
    /// A body (or bulk element) that is not a JSON object.
    case notAnObject
    case invalidTimestamp(field: String)
    case secondGeopoint(field: String, existing: String)
    /// A write that would grow a schema past `SchemaDefinition.maxInferredFields`.
    case tooManyFields(schema: String, limit: Int)
    /// A string to store (a value, anywhere in an array, or an id) holding U+0000, which
    /// PostgreSQL's `text` cannot hold: refused on every engine rather than cut.
    case containsNUL(field: String)
    /// A request carrying more passwords to hash than `Datastore.maxPasswordsPerRequest`.
    case tooManyPasswords(limit: Int)
    /// A save (update or upsert) that would change a user's password, from a caller other than
    /// the private key: the change needs the old password (`resetPassword`) or a mailed one.
    case passwordChangeNeedsReset(field: String)
    /// A nested object that reached a user schema other than the one its password was prepared
    /// for (the relations header named another target), so its password is not hashed.
    case unhashedPassword(field: String)
    /// The request was cancelled (past its deadline, or its client gone) before its passwords
    /// were hashed; nothing was written.
    case cancelled
    /// An expansion whose related objects' stored bytes pass `limit`
    /// (`limits.max_expanded_response_bytes`, `RelationLoader.byteLimit`).
    case expansionTooLarge(limit: Int)

    public var message: String {
        switch self {
        case .invalidSchemaName(let name):
            "Invalid schema name '\(name)': use lower-case letters, digits and underscores, starting with a letter, at most \(Identifier.maxLength) characters"
        case .invalidFieldName(let name):
            "Invalid field name '\(name)': use lower-case letters, digits and underscores, at most \(Identifier.maxLength) characters"
        case .reservedSchemaName(let name):
            "'\(name)' is reserved by the API and cannot be a schema name"
        case .unknownSchema(let schema):
            "Schema '\(schema)' does not exist"
        case .unknownName(let name):
            "No custom code method or schema named '\(name)'"
        case .unknownField(let schema, let field):
            "Field '\(field)' does not exist in schema '\(schema)'"
        case .objectNotFound:
            "object instance does not exist"
        case .objectNotFoundForDelete:
            "This object does not exist"
        case .duplicateKey(let schema, let id):
            "Duplicate key for schema \(schema): \"\(id)\""
        case .primaryKeyChange:
            "unable to update primary key"
        case .incompatibleType(let field):
            "\(field) is an incompatible type, please check your schema"
        case .invalidType(let field):
            "\(field) has invalid type, please check your schema"
        case .subObjectWithoutRelation(let field):
            "\(field) is an object: only geopoints ({\"lat\", \"lon\"}) may be sent inline; map related objects with X-StackMob-Relations"
        case .missingPrimaryKey(let field):
            "\(field) is required"
        case .invalidPrimaryKey(let field):
            "\(field) must be a non-empty string"
        case .notAnObject:
            "The request body must be a JSON object, or an array of JSON objects"
        case .secondGeopoint(let field, let existing):
            "\(field) would be a second geopoint field: a schema has one geopoint field, here \(existing)"
        case .tooManyFields(let schema, let limit):
            "Schema '\(schema)' cannot have more than \(limit) fields"
        case .containsNUL(let field):
            "field \"\(field)\" contains U+0000, which cannot be stored"
        case .tooManyPasswords(let limit):
            "A request may set at most \(limit) user passwords (bulk elements and related objects together); send the rest in further requests"
        case .passwordChangeNeedsReset(let field):
            "\(field) cannot be changed by saving the user: use resetPassword with the old password, or forgotPassword"
        case .unhashedPassword(let field):
            "\(field) is a user's password, but X-StackMob-Relations names another schema for its object; name the user schema"
        case .cancelled:
            "The request was cancelled before it was carried out"
        case .expansionTooLarge(let limit):
            "The expanded answer would be larger than the limit of \(limit) bytes (limits.max_expanded_response_bytes): ask for fewer objects with Range, or a smaller expansion depth"
        case .invalidTimestamp(let field):
            "\(field) must be an integer number of milliseconds since the epoch, from 0 to \(ObjectTimestamps.acceptedRange.upperBound)"
        }
    }
}
