/// Relationship requests the server refuses; every case is a 400 with a message safe to show.
public enum RelationError: Error, Sendable, Equatable {
    case malformedRelations(String)
    case relationsTooDeep(path: String)
    /// `POST /<schema>/<id>/<field>` on a field that holds something other than a one-to-many
    /// relation.
    case notAOneToManyRelation(field: String)
    /// `PUT`/`DELETE /<schema>/<id>/<field>` on a field that is neither an array nor a relation.
    case notACollection(field: String)
    /// A related object that is not a JSON object, or a relation value that is not an id.
    case invalidRelatedValue(field: String)

    public var message: String {
        switch self {
        case .malformedRelations(let reason):
            "Invalid X-StackMob-Relations: \(reason); use path=schema entries joined by &"
        case .relationsTooDeep(let path):
            "Invalid X-StackMob-Relations: '\(path)' is nested more than \(RelationMap.maxDepth) levels deep"
        case .notAOneToManyRelation(let field):
            "\(field) is not a one-to-many relationship: related objects cannot be added to it"
        case .notACollection(let field):
            "\(field) is neither an array nor a relationship: values cannot be appended to or removed from it"
        case .invalidRelatedValue(let field):
            "\(field) must hold related objects or their ids"
        }
    }
}
