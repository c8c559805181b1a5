import Foundation

/// Everything a query read carries: the filter from the query string, and the `X-StackMob-OrderBy`,
/// `X-StackMob-Select` and `Range` headers (PROTOCOL §5.3–5.6).
public struct QueryRequest: Sendable, Equatable {
    public var filter: QueryFilter?
    public var order: [SortKey]
    /// Field names; nil returns every field.
    public var select: [String]?
    public var range: ObjectRange?
    /// `X-StackMob-Expand` or `_expand`: how many levels of relations to expand (§5.5).
    public var expand: Int

    public init(filter: QueryFilter? = nil, order: [SortKey] = [], select: [String]? = nil, range: ObjectRange? = nil, expand: Int = 0) {
        self.filter = filter
        self.order = order
        self.select = select
        self.range = range
        self.expand = expand
    }

    /// An expansion depth, `0` to `3` (§5.5; the Java SDK's maximum is 3).
    public static func parseExpand(_ value: String) throws(QueryError) -> Int {
        guard let depth = Int(value.trimmingSpaces()), (0...3).contains(depth) else {
            throw .invalidExpand(value)
        }
        return depth
    }

    /// `field1:asc,field2:desc`; a key without direction is ascending.
    public static func parseOrderBy(_ header: String) throws(QueryError) -> [SortKey] {
        var keys: [SortKey] = []
        let parts = header.split(separator: ",")
        guard parts.count <= QueryLimits.maxOrderKeys else {
            throw .limitExceeded(what: "X-StackMob-OrderBy keys", limit: QueryLimits.maxOrderKeys)
        }
        for part in parts {
            let pieces = part.trimmingSpaces().split(separator: ":", omittingEmptySubsequences: false)
            guard (1...2).contains(pieces.count), Identifier.isValidFieldName(String(pieces[0])) else {
                throw .invalidOrderBy("'\(part)' is not field:asc or field:desc")
            }
            let direction = pieces.count == 2 ? pieces[1].lowercased() : "asc"
            guard direction == "asc" || direction == "desc" else {
                throw .invalidOrderBy("'\(part)' is not field:asc or field:desc")
            }
            keys.append(SortKey(field: String(pieces[0]), ascending: direction == "asc"))
        }
        return keys
    }

    /// `f1,f2,rel.f3,rel.*`: dotted paths select into expanded relations; whether the relation is
    /// expanded is checked against the schema (`FieldSelection.validate`).
    public static func parseSelect(_ header: String) throws(QueryError) -> [String] {
        var fields: [String] = []
        let parts = header.split(separator: ",")
        guard parts.count <= QueryLimits.maxSelectedFields else {
            throw .limitExceeded(what: "X-StackMob-Select fields", limit: QueryLimits.maxSelectedFields)
        }
        for part in parts {
            let field = part.trimmingSpaces()
            let components = field.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            for (index, component) in components.enumerated() {
                // `*` only as the last step of a path into a relation: `rel.*`.
                let isWildcard = component == "*" && index > 0 && index == components.count - 1
                guard isWildcard || Identifier.isValidFieldName(component) else {
                    throw .invalidSelect("'\(field)' is not a field name or a path such as rel.field or rel.*")
                }
            }
            fields.append(field)
        }
        return fields
    }
}
