/// Parses query-string parameters into a `QueryFilter` (PROTOCOL §5.1, D6).
///
/// Parameters without a prefix are ANDed. `[orN].[andM].f` parameters sharing N and M form one
/// ANDed alternative; `[orN].f` is an alternative of its own; a group's alternatives are ORed, and
/// every group is ANDed with the rest. Keys and values arrive percent-decoded.
public enum QueryParser {
    /// Query parameters that are not filters.
    public static let reservedParameters: Set<String> = ["_expand"]

    public static func parse(_ parameters: [(key: String, value: String)]) throws(QueryError) -> QueryFilter? {
        var plain: [QueryFilter] = []
        // Groups and their alternatives in the order they first appear.
        var groups: [(id: String, alternatives: [(id: String?, conditions: [QueryFilter])])] = []
        let filters = parameters.filter { !reservedParameters.contains($0.key) }
        guard filters.count <= QueryLimits.maxConditions else {
            throw .limitExceeded(what: "filter parameters", limit: QueryLimits.maxConditions)
        }
        for (key, value) in filters {
            let (group, alternative, rest) = try splitPrefix(key)
            let condition = QueryFilter.condition(try parseCondition(rest, value: value, parameter: key))
            guard let group else {
                plain.append(condition)
                continue
            }
            let groupIndex: Int
            if let existing = groups.firstIndex(where: { $0.id == group }) {
                groupIndex = existing
            } else {
                guard groups.count < QueryLimits.maxOrGroups else {
                    throw .limitExceeded(what: "[orN] groups", limit: QueryLimits.maxOrGroups)
                }
                groups.append((group, []))
                groupIndex = groups.count - 1
            }
            if let alternative, let index = groups[groupIndex].alternatives.firstIndex(where: { $0.id == alternative }) {
                groups[groupIndex].alternatives[index].conditions.append(condition)
            } else {
                groups[groupIndex].alternatives.append((alternative, [condition]))
            }
        }
        for group in groups {
            plain.append(.any(group.alternatives.map { $0.conditions.count == 1 ? $0.conditions[0] : .all($0.conditions) }))
        }
        switch plain.count {
        case 0: return nil
        case 1: return plain[0]
        default: return .all(plain)
        }
    }

    /// Splits `[or1].[and2].name[ne]` into ("1", "2", "name[ne]").
    private static func splitPrefix(_ key: String) throws(QueryError) -> (group: String?, alternative: String?, rest: Substring) {
        var rest = Substring(key)
        guard rest.hasPrefix("[or") else { return (nil, nil, rest) }
        let group = try takeBracketNumber(&rest, keyword: "[or", parameter: key)
        var alternative: String?
        if rest.hasPrefix("[and") {
            alternative = try takeBracketNumber(&rest, keyword: "[and", parameter: key)
        }
        return (group, alternative, rest)
    }

    private static func takeBracketNumber(_ rest: inout Substring, keyword: String, parameter: String) throws(QueryError) -> String {
        rest = rest.dropFirst(keyword.count)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        rest = rest.dropFirst(digits.count)
        guard !digits.isEmpty, rest.hasPrefix("].") else {
            throw .malformedParameter(parameter: parameter, reason: "expected \(keyword)N]. with a number N")
        }
        rest = rest.dropFirst(2)
        return String(digits)
    }

    private static func parseCondition(_ text: Substring, value: String, parameter: String) throws(QueryError) -> QueryCondition {
        var field = text
        var op: Substring?
        if let open = text.firstIndex(of: "[") {
            guard text.hasSuffix("]") else { throw .malformedParameter(parameter: parameter, reason: "unclosed '['") }
            field = text[..<open]
            op = text[text.index(after: open)..<text.index(before: text.endIndex)]
        }
        let name = String(field)
        guard Identifier.isValidFieldName(name) else {
            throw .malformedParameter(parameter: parameter, reason: "'\(name)' is not a field name")
        }
        let comparison: QueryComparison
        switch op {
        case nil: comparison = .equal(value)
        case "ne": comparison = .notEqual(value)
        case "lt": comparison = .lessThan(value)
        case "lte": comparison = .lessOrEqual(value)
        case "gt": comparison = .greaterThan(value)
        case "gte": comparison = .greaterOrEqual(value)
        // Lists are split on commas after percent-decoding (PROTOCOL §2.2, D30).
        case "in": comparison = .isIn(try list(value, parameter: parameter))
        case "nin": comparison = .notIn(try list(value, parameter: parameter))
        case "null": comparison = .isNull(try flag(value, parameter: parameter))
        case "empty": comparison = .isEmpty(try flag(value, parameter: parameter))
        case "near": comparison = .near(value.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
        case "within": comparison = .within(value.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
        default:
            throw .unknownOperator(parameter: parameter)
        }
        return QueryCondition(field: name, comparison: comparison, parameter: parameter)
    }

    private static func list(_ value: String, parameter: String) throws(QueryError) -> [String] {
        let values = value.split(separator: ",", omittingEmptySubsequences: false)
        guard values.count <= QueryLimits.maxListValues else {
            throw .limitExceeded(what: "values in '\(parameter)'", limit: QueryLimits.maxListValues)
        }
        return values.map(String.init)
    }

    private static func flag(_ value: String, parameter: String) throws(QueryError) -> Bool {
        switch value.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: throw .malformedParameter(parameter: parameter, reason: "expected true or false")
        }
    }
}
