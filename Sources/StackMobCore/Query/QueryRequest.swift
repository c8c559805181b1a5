import Foundation

/// Everything a query read carries: the filter from the query string, and the `X-StackMob-OrderBy`,
/// `X-StackMob-Select` and `Range` headers (PROTOCOL §5.3–5.6).
public struct QueryRequest: Sendable, Equatable {
    public var filter: QueryFilter?
    public var order: [SortKey]
    /// Field names; nil returns every field.
    public var select: [String]?
    public var range: ObjectRange?

    public init(filter: QueryFilter? = nil, order: [SortKey] = [], select: [String]? = nil, range: ObjectRange? = nil) {
        self.filter = filter
        self.order = order
        self.select = select
        self.range = range
    }

    /// `field1:asc,field2:desc`; a key without direction is ascending.
    public static func parseOrderBy(_ header: String) throws(QueryError) -> [SortKey] {
        var keys: [SortKey] = []
        for part in header.split(separator: ",") {
            let pieces = part.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
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

    /// `f1,f2`; dotted paths select into expanded relations, which come with expansion.
    public static func parseSelect(_ header: String) throws(QueryError) -> [String] {
        var fields: [String] = []
        for part in header.split(separator: ",") {
            let field = part.trimmingCharacters(in: .whitespaces)
            if field.contains(".") {
                throw .invalidSelect("'\(field)' selects into a relation that is not expanded")
            }
            guard Identifier.isValidFieldName(field) else { throw .invalidSelect("'\(field)' is not a field name") }
            fields.append(field)
        }
        return fields
    }
}
