import StackMobCore
import Testing

@Suite("UnionCount: an OR group's total as a sum of totals without it")
struct UnionCountTests {
    private func condition(_ field: String, _ operation: TypedCondition.Operation) -> TypedFilter {
        .condition(TypedCondition(field: field, target: .scalar, operation: operation))
    }

    @Test("two branches: each alone, plus, and both together, minus, each with the other conditions")
    func twoBranches() throws {
        let rest = condition("owner", .equal("u1"))
        let a = condition("level", .lessThan(3)), b = condition("level", .greaterThan(5))
        let union = try #require(UnionCount(.all([rest, .any([a, b])]), seekable: { _ in true }))
        #expect(union.terms.map(\.sign) == [1, 1, -1])
        #expect(union.terms.map(\.filter) == [.all([rest, a]), .all([rest, b]), .all([rest, a, b])])
    }

    @Test("three branches make seven terms whose signs alternate with the number of branches")
    func threeBranches() throws {
        let branches = (1...3).map { condition("level", .equal(.integer(Int64($0)))) }
        let union = try #require(UnionCount(.any(branches), seekable: { _ in true }))
        #expect(union.terms.count == 7)
        #expect(union.terms.map(\.sign) == [1, 1, -1, 1, -1, -1, 1])
    }

    @Test("no rewrite: no group, two groups, one branch, too many branches, or a branch without an index")
    func refusals() {
        let a = condition("level", .lessThan(3)), b = condition("level", .greaterThan(5))
        #expect(UnionCount(a, seekable: { _ in true }) == nil)
        #expect(UnionCount(.all([a, b]), seekable: { _ in true }) == nil)
        #expect(UnionCount(.all([.any([a, b]), .any([a, b])]), seekable: { _ in true }) == nil)
        #expect(UnionCount(.any([a]), seekable: { _ in true }) == nil)
        #expect(UnionCount(.any([a, b, a, b]), seekable: { _ in true }) == nil)
        #expect(UnionCount(.any([a, condition("grade", .equal(1))]), seekable: { $0.seekableFields.contains("level") }) == nil)
    }

    @Test("seekable fields: equalities, ranges, lists and [null]=true of the filter's own AND, not negations or nested groups")
    func seekableFields() {
        #expect(condition("a", .isIn([1])).seekableFields == ["a"])
        #expect(condition("a", .isNull(true)).seekableFields == ["a"])
        #expect(condition("a", .isNull(false)).seekableFields.isEmpty)
        #expect(condition("a", .notEqual(1)).seekableFields.isEmpty)
        #expect(TypedFilter.condition(TypedCondition(field: "tags", target: .arrayElements, operation: .equal("x"))).seekableFields.isEmpty)
        let nested = TypedFilter.all([condition("a", .equal(1)), .any([condition("b", .equal(1)), condition("c", .equal(1))])])
        #expect(nested.seekableFields == ["a"])
    }
}
