/// The total of a filter with an `[orN]` group, as a sum of totals without one: the count of
/// `rest AND (A OR B)` is `count(rest AND A) + count(rest AND B) − count(rest AND A AND B)`
/// (inclusion–exclusion, exact: a row is counted when A or B is true, once).
///
/// Why: an engine counts an OR either by reading every row the other conditions leave, testing
/// each branch, or (SQLite's "MULTI-INDEX OR") by gathering every branch's row ids, removing the
/// duplicates and looking each row up. When each branch can be read from an index, each of these
/// counts is a walk of an index range instead, which costs a fraction of either (docs/benchmarks.md,
/// "Filter shapes"). An engine uses it only where its indexes serve every branch
/// (`seekableFields`): without them each term would read the whole table again.
public struct UnionCount: Sendable, Equatable {
    public struct Term: Sendable, Equatable {
        /// +1 or −1.
        public let sign: Int
        /// A filter without the OR group: the other conditions and one or more branches.
        public let filter: TypedFilter
    }

    /// At most 2^branches − 1 terms.
    public let terms: [Term]

    /// The largest group taken: three branches make seven counts; past that the sum costs more
    /// than the one count it replaces.
    public static let maxBranches = 3

    /// nil unless the filter has exactly one OR group among its top-level conditions (or is one),
    /// of two to `maxBranches` branches, each of which `seekable` accepts.
    public init?(_ filter: TypedFilter, seekable: (TypedFilter) -> Bool) {
        let conjuncts: [TypedFilter]
        switch filter {
        case .all(let filters): conjuncts = filters
        case .any: conjuncts = [filter]
        case .condition, .access: return nil
        }
        let groups = conjuncts.indices.filter { if case .any = conjuncts[$0] { return true } else { return false } }
        guard groups.count == 1, case .any(let branches) = conjuncts[groups[0]],
            (2...Self.maxBranches).contains(branches.count), branches.allSatisfy(seekable)
        else { return nil }
        var rest = conjuncts
        rest.remove(at: groups[0])
        var terms: [Term] = []
        for subset in 1..<(1 << branches.count) {
            let chosen = branches.indices.filter { subset & (1 << $0) != 0 }.map { branches[$0] }
            terms.append(Term(sign: chosen.count % 2 == 1 ? 1 : -1, filter: .all(rest + chosen)))
        }
        self.terms = terms
    }
}

extension TypedFilter {
    /// The fields an ordered index on them lets an engine seek to, rather than read past: those of
    /// the scalar equalities, ranges, `[in]` lists and `[null]=true` this filter requires (its own
    /// condition, or those of its top-level AND).
    public var seekableFields: Set<String> {
        switch self {
        case .condition(let condition):
            guard condition.target == .scalar else { return [] }
            switch condition.operation {
            case .equal, .lessThan, .lessOrEqual, .greaterThan, .greaterOrEqual, .isIn, .isNull(true):
                return [condition.field]
            default:
                return []
            }
        case .all(let filters):
            return filters.reduce(into: []) { fields, filter in
                if case .condition = filter { fields.formUnion(filter.seekableFields) }
            }
        case .any, .access:
            return []
        }
    }
}
