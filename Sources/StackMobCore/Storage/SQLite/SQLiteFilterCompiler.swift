import GRDB

/// Compiles a typed filter into a SQLite `WHERE` expression with bound arguments.
///
/// Field names were validated by the query parser and are quoted here; every value is a `?`.
/// Array fields are stored as JSON text and matched element-wise through `json_each`.
struct SQLiteFilterCompiler {
    private(set) var arguments: [DatabaseValue] = []

    mutating func compile(_ filter: TypedFilter) -> String {
        switch filter {
        case .all(let filters):
            return filters.isEmpty ? "1" : "(" + filters.map { compile($0) }.joined(separator: " AND ") + ")"
        case .any(let filters):
            return filters.isEmpty ? "0" : "(" + filters.map { compile($0) }.joined(separator: " OR ") + ")"
        case .condition(let condition):
            return compile(condition)
        }
    }

    private mutating func compile(_ condition: TypedCondition) -> String {
        let column = "\"\(condition.field)\""
        switch condition.target {
        case .missing:
            return missing(condition.operation)
        case .scalar:
            return comparison(column, condition.operation)
        case .arrayElements:
            switch condition.operation {
            case .isNull(let isNull):
                return "\(column) IS \(isNull ? "" : "NOT ")NULL"
            case .notEqual(let value):
                return "NOT EXISTS (SELECT 1 FROM json_each(\(column)) WHERE value = \(bind(value)))"
            case .notIn(let values):
                return "NOT EXISTS (SELECT 1 FROM json_each(\(column)) WHERE value IN (\(bind(values))))"
            default:
                return "EXISTS (SELECT 1 FROM json_each(\(column)) WHERE \(comparison("value", condition.operation)))"
            }
        }
    }

    private mutating func comparison(_ column: String, _ operation: TypedCondition.Operation) -> String {
        switch operation {
        case .equal(let value): "\(column) = \(bind(value))"
        // A missing value is "not equal" too.
        case .notEqual(let value): "\(column) IS NOT \(bind(value))"
        case .lessThan(let value): "\(column) < \(bind(value))"
        case .lessOrEqual(let value): "\(column) <= \(bind(value))"
        case .greaterThan(let value): "\(column) > \(bind(value))"
        case .greaterOrEqual(let value): "\(column) >= \(bind(value))"
        case .isIn(let values): "\(column) IN (\(bind(values)))"
        case .notIn(let values): "(\(column) IS NULL OR \(column) NOT IN (\(bind(values))))"
        case .isNull(let isNull): "\(column) IS \(isNull ? "" : "NOT ")NULL"
        case .isEmpty(let isEmpty): "\(column) \(isEmpty ? "=" : "<>") ''"
        }
    }

    /// A field no object has: null everywhere, so only "is null" and negations match.
    private func missing(_ operation: TypedCondition.Operation) -> String {
        switch operation {
        case .notEqual, .notIn: "1"
        case .isNull(let isNull): isNull ? "1" : "0"
        case .equal, .lessThan, .lessOrEqual, .greaterThan, .greaterOrEqual, .isIn, .isEmpty: "0"
        }
    }

    private mutating func bind(_ value: JSONValue) -> String {
        arguments.append(SQLiteValueMapping.databaseValue(value))
        return "?"
    }

    private mutating func bind(_ values: [JSONValue]) -> String {
        values.map { bind($0) }.joined(separator: ", ")
    }
}
