/// The StackMob query language (PROTOCOL §5.1–5.2) as parsed from a query string, before the
/// values are typed against a schema.
public indirect enum QueryFilter: Sendable, Equatable {
    case all([QueryFilter])
    case any([QueryFilter])
    case condition(QueryCondition)
}

public struct QueryCondition: Sendable, Equatable {
    public var field: String
    public var comparison: QueryComparison
    /// The query parameter as sent, for error messages.
    public var parameter: String

    public init(field: String, comparison: QueryComparison, parameter: String) {
        self.field = field
        self.comparison = comparison
        self.parameter = parameter
    }
}

public enum QueryComparison: Sendable, Equatable {
    case equal(String)
    case notEqual(String)
    case lessThan(String)
    case lessOrEqual(String)
    case greaterThan(String)
    case greaterOrEqual(String)
    case isIn([String])
    case notIn([String])
    case isNull(Bool)
    case isEmpty(Bool)
}

/// A condition whose value is typed by the field's schema type, ready for a storage engine.
public struct TypedCondition: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        /// A scalar column: compared directly.
        case scalar
        /// An array column: a comparison matches when any element matches.
        case arrayElements
        /// A field the schema does not have: it is null in every object.
        case missing
    }

    public enum Operation: Sendable, Equatable {
        case equal(JSONValue)
        case notEqual(JSONValue)
        case lessThan(JSONValue)
        case lessOrEqual(JSONValue)
        case greaterThan(JSONValue)
        case greaterOrEqual(JSONValue)
        case isIn([JSONValue])
        case notIn([JSONValue])
        case isNull(Bool)
        case isEmpty(Bool)
    }

    public var field: String
    public var target: Target
    public var operation: Operation

    public init(field: String, target: Target, operation: Operation) {
        self.field = field
        self.target = target
        self.operation = operation
    }
}

public indirect enum TypedFilter: Sendable, Equatable {
    case all([TypedFilter])
    case any([TypedFilter])
    case condition(TypedCondition)
}
