import StackMobCore
import Testing

@Suite("QueryParser and ObjectRange")
struct QueryParserTests {
    private func condition(_ field: String, _ comparison: QueryComparison, _ parameter: String) -> QueryFilter {
        .condition(QueryCondition(field: field, comparison: comparison, parameter: parameter))
    }

    @Test("the documented OR example parses into AND of a condition and an OR group")
    func documentedExample() throws {
        let parameters: [(key: String, value: String)] = [
            ("age[gt]", "25"), ("[or1].[and1].location", "NYC"), ("[or1].[and1].name[ne]", "john"),
            ("[or1].[and2].location", "SF"), ("[or1].[and2].name[ne]", "Mary"), ("[or1].location", "LA"),
        ]
        let filter = try QueryParser.parse(parameters)
        #expect(filter == .all([
            condition("age", .greaterThan("25"), "age[gt]"),
            .any([
                .all([condition("location", .equal("NYC"), "[or1].[and1].location"), condition("name", .notEqual("john"), "[or1].[and1].name[ne]")]),
                .all([condition("location", .equal("SF"), "[or1].[and2].location"), condition("name", .notEqual("Mary"), "[or1].[and2].name[ne]")]),
                condition("location", .equal("LA"), "[or1].location"),
            ]),
        ]))
    }

    @Test("no parameters, or only _expand, is no filter")
    func empty() throws {
        #expect(try QueryParser.parse([]) == nil)
        #expect(try QueryParser.parse([("_expand", "2")]) == nil)
    }

    @Test("lists split on commas after decoding")
    func lists() throws {
        #expect(try QueryParser.parse([("name[in]", "a,b,,c")]) == condition("name", .isIn(["a", "b", "", "c"]), "name[in]"))
    }

    @Test("ranges", arguments: [
        ("objects=0-9", ObjectRange(start: 0, end: 9)), ("objects=5-", ObjectRange(start: 5, end: nil)),
        ("objects=3-3", ObjectRange(start: 3, end: 3)),
    ])
    func ranges(header: String, expected: ObjectRange) throws {
        #expect(try ObjectRange.parse(header) == expected)
    }

    @Test("bad ranges", arguments: ["objects=", "objects=-5", "objects=a-b", "bytes=0-1", "objects=9-1"])
    func badRanges(header: String) {
        #expect(throws: QueryError.invalidRange(header)) { try ObjectRange.parse(header) }
    }
}
