/// A query the server cannot run; every case is a 400 naming the offending parameter or header.
public enum QueryError: Error, Sendable, Equatable {
    case unknownOperator(parameter: String)
    case malformedParameter(parameter: String, reason: String)
    case valueDoesNotFitType(parameter: String, field: String, type: String)
    case notQueryable(parameter: String, field: String)
    /// A filter on a field the schema does not have.
    case unknownField(field: String, schema: String)
    case invalidOrderBy(String)
    case invalidSelect(String)
    case invalidRange(String)
    case invalidExpand(String)
    case deleteNeedsQuery
    /// A query past one of `QueryLimits`: `what` names the thing counted.
    case limitExceeded(what: String, limit: Int)

    public var message: String {
        switch self {
        case .unknownOperator(let parameter):
            "Unknown query operator in '\(parameter)': use lt, lte, gt, gte, ne, in, nin, null, empty, near or within"
        case .malformedParameter(let parameter, let reason):
            "Malformed query parameter '\(parameter)': \(reason)"
        case .valueDoesNotFitType(let parameter, let field, let type):
            "Query parameter '\(parameter)': the value does not fit field \(field), which holds \(type) values"
        case .notQueryable(let parameter, let field):
            "Query parameter '\(parameter)': field \(field) cannot be queried"
        case .unknownField(let field, let schema):
            "Field '\(field)' does not exist in schema '\(schema)'"
        case .invalidOrderBy(let reason):
            "Invalid X-StackMob-OrderBy: \(reason)"
        case .invalidSelect(let reason):
            "Invalid X-StackMob-Select: \(reason)"
        case .invalidRange(let value):
            "Invalid Range header '\(value)': use objects=<start>-<end> or objects=<start>-"
        case .invalidExpand(let value):
            "Invalid expansion depth '\(value)': X-StackMob-Expand and _expand take an integer from 0 to 3"
        case .limitExceeded(let what, let limit):
            "Too many \(what): a query may have at most \(limit)"
        case .deleteNeedsQuery:
            "DELETE /<schema> needs a query: to delete every object, delete them by id"
        }
    }
}
